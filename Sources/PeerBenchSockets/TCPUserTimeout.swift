import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// How the tcp and tls plugins notice a dead peer (docs/PLUGINS.md, "Dead-peer detection").
///
/// Keepalive (`keepAlive`) only probes an idle connection: during the bulk phase there
/// is always unacknowledged data, so a silent link is noticed by the retransmission
/// timer instead, and Linux retransmits for about 15 minutes (tcp_retries2 = 15) before
/// it gives up. `userTimeoutMs` sets TCP_USER_TIMEOUT (RFC 5482): the connection is
/// dropped once data stays unacknowledged that long, which is the dead-peer time of
/// a connection with data in flight. (With it set, Linux also uses it instead of
/// keepalive's count to end an idle connection.)
public struct TCPUserTimeout: Sendable, Equatable {
    /// Milliseconds data may stay unacknowledged before the connection is dropped.
    public var milliseconds: Int

    public init(milliseconds: Int) { self.milliseconds = milliseconds }

    /// Reads `userTimeoutMs` (absent = the kernel's retransmission limit). Read only when
    /// given, so it joins the effective options (and the cell id) only then: matrices
    /// written before the option keep their cell ids.
    public static func read(_ options: PluginOptions) throws(InputError) -> TCPUserTimeout? {
        guard options.has("userTimeoutMs") else { return nil }
        return TCPUserTimeout(milliseconds: try options.int("userTimeoutMs", default: 0, range: 1...3_600_000))
    }

    public static let descriptor = OptionDescriptor(
        "userTimeoutMs", type: "int", default: "null",
        help: "TCP_USER_TIMEOUT: drop the connection when data stays unacknowledged this long (1-3600000 ms); null = the kernel's ~15 min.")

    public func apply(to socket: Socket) throws(SystemError) {
        try socket.setOption(Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(milliseconds), "TCP_USER_TIMEOUT")
    }
}
