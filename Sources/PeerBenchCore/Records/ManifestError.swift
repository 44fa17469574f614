/// What is wrong with a manifest.json; the caller adds the file's path.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
