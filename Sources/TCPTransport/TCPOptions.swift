#if canImport(Glibc)
import Glibc
#endif
public import PeerBenchJSON
public import PeerBenchSystem
public import PeerBenchPlugin

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
        reconnect = try ReconnectPolicy.readForStream(options, userTimeout: userTimeout, loadedRttProbes: loadedRttProbes)
    }

    /// What `peerbench list` prints.
    static let descriptors: [OptionDescriptor] = [
        OptionDescriptor("noDelay", type: "bool", default: "false", help: "TCP_NODELAY: turn Nagle's algorithm off on both ends."),
        OptionDescriptor("keepAlive.enabled", type: "bool", default: "true", help: "SO_KEEPALIVE on both ends."),
        OptionDescriptor("keepAlive.idleSeconds", type: "int", default: "\(TCPKeepAlive.default.idleSeconds)",
                         help: "TCP_KEEPIDLE: idle seconds before the first keepalive probe (1-32767)."),
        OptionDescriptor("keepAlive.intervalSeconds", type: "int", default: "\(TCPKeepAlive.default.intervalSeconds)",
                         help: "TCP_KEEPINTVL: seconds between keepalive probes (1-32767)."),
        OptionDescriptor("keepAlive.count", type: "int", default: "\(TCPKeepAlive.default.count)",
                         help: "TCP_KEEPCNT: unanswered probes before the connection drops (1-127)."),
    ] + LoadedRttProbes.descriptors + [TCPUserTimeout.descriptor, CongestionControl.descriptor]
        + ReconnectPolicy.descriptors

    /// Applies every option to a connected (or listening) socket.
    func apply(to socket: Socket) throws(SystemError) {
        try socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(noDelay ? 1 : 0), "TCP_NODELAY")
        try keepAlive.apply(to: socket)
        try userTimeout?.apply(to: socket)
        if let congestionControl { try socket.setCongestionControl(congestionControl) }
    }
}
