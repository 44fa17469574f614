import CPeerBenchSystem

/// A netlink message or attribute the kernel sent that does not fit its own length
/// fields. Parsing never reads past the bytes received: it throws this instead.
public struct NetlinkParseError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
