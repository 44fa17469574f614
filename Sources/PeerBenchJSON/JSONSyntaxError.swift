/// A strict JSON parser (RFC 8259) that reports the line and column of the first error.
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}
