import PeerBenchJSON

/// The entries of one of matrix.json's lists, `v` at `path`, for each list's parser to
/// read: not an array, or longer than `max`, is a problem and gives no entries (those
/// of an over-long list are not validated one by one: that alone could take seconds);
/// an empty one is a problem too. `expected` names what the array holds and
/// `emptyHint` what leaving the key out means, in the messages.
public func matrixList(
    _ v: JSONValue, _ path: JSONPath, expected: String = "an array", emptyHint: String = "", max: Int,
    problems: inout [InputProblem]
) -> [JSONValue] {
    func fail(_ message: String) { problems.append(InputProblem(path: path.description, message)) }
    guard let list = v.arrayValue else {
        fail("expected \(expected), got \(v.typeName)")
        return []
    }
    if list.isEmpty { fail("must not be empty" + emptyHint) }
    guard list.count <= max else {
        fail("has \(list.count) entries; at most \(max) are allowed")
        return []
    }
    return list
}
