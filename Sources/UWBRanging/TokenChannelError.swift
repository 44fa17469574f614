#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the out-of-band channel itself (not of the token it carries).
public struct TokenChannelError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
