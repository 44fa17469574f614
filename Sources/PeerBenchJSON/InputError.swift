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

/// Builds JSON paths in the `$.a.b[2]` form used in every error message.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public private(set) var description: String
    public static let root = JSONPath(description: "$")
    public func key(_ k: String) -> JSONPath {
        let plain = k.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !k.isEmpty
        return JSONPath(description: description + (plain ? ".\(k)" : "[\"\(k)\"]"))
    }
    public func index(_ i: Int) -> JSONPath { JSONPath(description: description + "[\(i)]") }
}
