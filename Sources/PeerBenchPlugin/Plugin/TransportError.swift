/// A plugin's own error with a message for the record's `error` field.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
