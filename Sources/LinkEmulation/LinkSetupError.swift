/// The emulated link could not be set up or torn down. The message names what failed
/// and what to do about it.
public struct LinkSetupError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static let privilegeHint =
        "the emulated link needs CAP_NET_ADMIN to create network namespaces and TUN devices: run peerbench with sudo, or use --link none for plain loopback"
}
