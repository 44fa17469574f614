public import PeerBenchJSON
public import PeerBenchPlugin
import PeerBenchSockets
public import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// The TCP plugin's matrix options, applied to both ends of the connection.
public struct TCPOptions: Sendable, Equatable {
    /// TCP_NODELAY: true turns Nagle's algorithm off.
    public var noDelay: Bool
    public var keepAlive: TCPKeepAlive
    /// RTT probes during the bulk phase, on the same connection; nil = off.
    public var loadedRttProbes: LoadedRttProbes?
    /// TCP_USER_TIMEOUT (TCPDeadPeerDetection.swift); nil = the kernel's default.
    public var userTimeout: TCPUserTimeout?
    /// TCP_CONGESTION on both ends; nil = the host's default.
    public var congestionControl: String?
    /// Connect again and resume after a lost connection in the bulk phase; nil = off.
    public var reconnect: ReconnectPolicy?
    /// SO_RCVBUF on both ends, bytes; nil = the kernel's autotuning. A fixed receive
    /// buffer caps the window a receiver offers, so a sender gets at most about half of
    /// it (Linux keeps the rest for overhead) per round trip: how a stack, not the link,
    /// holds TCP below the link's rate (docs/FIELD-STUDY.md, the phones' TCP).
    public var receiveBufferBytes: Int?
    /// TCP_QUICKACK after every read on both ends (TCPQuickAck.swift): acknowledge at
    /// once, as Apple's stack does, instead of after Linux's delayed-ACK timer.
    public var quickAck = false

    public init(noDelay: Bool = false, keepAlive: TCPKeepAlive = .default, loadedRttProbes: LoadedRttProbes? = nil) {
        self.noDelay = noDelay
        self.keepAlive = keepAlive
        self.loadedRttProbes = loadedRttProbes
    }

    /// Reads `noDelay` and `keepAlive {...}` from the matrix.
    public init(_ options: PluginOptions) throws(InputError) {
        noDelay = try options.bool("noDelay", default: false)
        keepAlive = try TCPKeepAlive(options.object("keepAlive"))
        loadedRttProbes = try LoadedRttProbes.read(options)
        userTimeout = try TCPUserTimeout.read(options)
        congestionControl = try CongestionControl.read(options)
        reconnect = try ReconnectPolicy.readForStream(options, userTimeout: userTimeout, withLoadedRttProbes: loadedRttProbes != nil)
        // Read only when written: an option a matrix does not write stays out of its
        // effective options, and so out of its cell ids.
        if options.has("receiveBufferBytes") {
            receiveBufferBytes = try options.int("receiveBufferBytes", default: 0, range: 4_096...(64 << 20))
        }
        if options.has("quickAck") { quickAck = try options.bool("quickAck", default: false) }
    }

    /// What `peerbench list` prints.
    static let descriptors: [OptionDescriptor] =
        [
            OptionDescriptor("noDelay", type: "bool", default: "false", help: "TCP_NODELAY: turn Nagle's algorithm off on both ends."),
            OptionDescriptor("keepAlive.enabled", type: "bool", default: "true", help: "SO_KEEPALIVE on both ends."),
            OptionDescriptor(
                "keepAlive.idleSeconds", type: "int", default: "\(TCPKeepAlive.default.idleSeconds)",
                help: "TCP_KEEPIDLE: idle seconds before the first keepalive probe (1-32767)."),
            OptionDescriptor(
                "keepAlive.intervalSeconds", type: "int", default: "\(TCPKeepAlive.default.intervalSeconds)",
                help: "TCP_KEEPINTVL: seconds between keepalive probes (1-32767)."),
            OptionDescriptor(
                "keepAlive.count", type: "int", default: "\(TCPKeepAlive.default.count)",
                help: "TCP_KEEPCNT: unanswered probes before the connection drops (1-127)."),
            OptionDescriptor(
                "receiveBufferBytes", type: "int", default: "null",
                help: "SO_RCVBUF on both ends (4096-67108864): caps the receive window; null = the kernel's autotuning."),
            OptionDescriptor(
                "quickAck", type: "bool", default: "false",
                help: "TCP_QUICKACK after every read on both ends: acknowledge at once, as Apple's stack does, not after Linux's delayed-ACK timer."),
        ] + LoadedRttProbes.descriptors + [TCPUserTimeout.descriptor, CongestionControl.descriptor]
        + ReconnectPolicy.descriptors

    /// Applies every option to a connected (or listening) socket.
    func apply(to socket: Socket) throws(SystemError) {
        try socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(noDelay ? 1 : 0), "TCP_NODELAY")
        try keepAlive.apply(to: socket)
        try userTimeout?.apply(to: socket)
        if let congestionControl { try socket.setCongestionControl(congestionControl) }
        if let receiveBufferBytes { try socket.setOption(SOL_SOCKET, SO_RCVBUF, Int32(receiveBufferBytes), "SO_RCVBUF") }
    }
}
