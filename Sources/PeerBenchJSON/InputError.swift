/// Thrown when input is rejected; carries every problem found, not only the first.
public struct InputError: Error, Sendable, CustomStringConvertible {
    public var problems: [InputProblem]
    public init(_ problems: [InputProblem]) { self.problems = problems }
    public init(source: String? = nil, path: String? = nil, _ message: String) {
        self.problems = [InputProblem(source: source, path: path, message)]
    }
    public var description: String { problems.map(\.description).joined(separator: "\n") }

    /// The same problems, attributed to `source` where they name none yet.
    public func attributed(to source: String) -> InputError {
        InputError(
            problems.map {
                var p = $0
                if p.source == nil { p.source = source }
                return p
            })
    }
}
