/// Two real hosts (`peerbench serve` and `run --link remote`): the authenticated
/// control channel, the responder, the testbed that reaches it, what the kernel says
/// about the real link, and finding the peer by DNS-SD. docs/protocol/control.md
/// documents the wire; docs/FIELD-GUIDE.md the field procedure.
public enum RemoteLink {
    /// The control protocol versions this build speaks (HELLO's list).
    public static let controlProtocolVersions: [UInt16] = [1]
    /// The DNS-SD service type `serve --advertise` publishes.
    public static let serviceType = "_peerbench._tcp"
}
