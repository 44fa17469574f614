import Foundation

/// A problem with the report's input or output that the user can act on; the
/// message names the folder or file at fault.
public struct ReportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
