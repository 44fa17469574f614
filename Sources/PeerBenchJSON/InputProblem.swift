/// One problem with user input, located precisely enough to fix it:
/// the file (or command-line argument) and the JSON path of the bad value.
public struct InputProblem: Sendable, Equatable, CustomStringConvertible {
    /// File name or argument (`matrix.json`, `--transports`); nil when the caller adds it later.
    public var source: String?
    /// JSON path such as `$.matrix.payloads.sizes[1]`; nil for whole-file problems.
    public var path: String?
    public var message: String

    public init(source: String? = nil, path: String?, _ message: String) {
        self.source = source
        self.path = path
        self.message = message
    }

    public var description: String {
        [source, path].compactMap { $0 }.joined(separator: ": ") + (source == nil && path == nil ? "" : ": ") + message
    }
}
