public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// TCP keepalive probing (`options.keepAlive`): SO_KEEPALIVE plus the three Linux
/// timers. The field study's iOS client set a 2-second idle time; the interval and
/// count default to values that fit inside a cell (the kernel's 75 s x 9 would not).
public struct TCPKeepAlive: Sendable, Equatable {
    /// SO_KEEPALIVE on or off; when off the timers below are not applied.
    public var enabled: Bool
    /// TCP_KEEPIDLE: seconds of silence before the first keepalive probe.
    public var idleSeconds: Int
    /// TCP_KEEPINTVL: seconds between unanswered probes.
    public var intervalSeconds: Int
    /// TCP_KEEPCNT: unanswered probes before the connection is dropped.
    public var count: Int

    /// Defaults, as `peerbench list` shows them.
    public static let `default` = TCPKeepAlive(enabled: true, idleSeconds: 2, intervalSeconds: 1, count: 5)

    public init(enabled: Bool, idleSeconds: Int, intervalSeconds: Int, count: Int) {
        self.enabled = enabled
        self.idleSeconds = idleSeconds
        self.intervalSeconds = intervalSeconds
        self.count = count
    }

    /// Reads the `keepAlive` object; an error names the JSON path of the bad value.
    /// Ranges are the kernel's own limits (MAX_TCP_KEEPIDLE, MAX_TCP_KEEPINTVL, MAX_TCP_KEEPCNT).
    public init(_ options: PluginOptions) throws(InputError) {
        let d = Self.default
        enabled = try options.bool("enabled", default: d.enabled)
        idleSeconds = try options.int("idleSeconds", default: d.idleSeconds, range: 1...32_767)
        intervalSeconds = try options.int("intervalSeconds", default: d.intervalSeconds, range: 1...32_767)
        count = try options.int("count", default: d.count, range: 1...127)
    }

    /// Sets SO_KEEPALIVE and, when enabled, TCP_KEEPIDLE/KEEPINTVL/KEEPCNT on `socket`.
    func apply(to socket: Socket) throws(SystemError) {
        try socket.setOption(SOL_SOCKET, SO_KEEPALIVE, Int32(enabled ? 1 : 0), "SO_KEEPALIVE")
        guard enabled else { return }
        let tcp = Int32(IPPROTO_TCP)
        try socket.setOption(tcp, TCP_KEEPIDLE, Int32(idleSeconds), "TCP_KEEPIDLE")
        try socket.setOption(tcp, TCP_KEEPINTVL, Int32(intervalSeconds), "TCP_KEEPINTVL")
        try socket.setOption(tcp, TCP_KEEPCNT, Int32(count), "TCP_KEEPCNT")
    }
}
