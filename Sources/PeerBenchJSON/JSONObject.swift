/// A JSON object whose members keep their order.
public struct JSONObject: Sendable, Equatable, Hashable, Sequence {
    public struct Member: Sendable, Equatable, Hashable {
        public var key: String
        public var value: JSONValue
    }
    public private(set) var members: [Member] = []

    public init() {}
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        for (k, v) in pairs { self[k] = v }
    }

    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Appends without checking for an existing key (the parser uses it to keep duplicates visible).
    mutating func appendRaw(_ key: String, _ value: JSONValue) { members.append(Member(key: key, value: value)) }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}
