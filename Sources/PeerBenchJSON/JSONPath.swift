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
