import PeerBenchJSON
import PeerBenchPlugin

/// The UDP plugin's application keepalive (option `keepAlive`, docs/protocol/udp.md,
/// "Keepalive"): what peer-to-peer apps over plain UDP add so they notice a dead peer.
/// Absent = off: UDP itself never notices, and records and cell ids of matrices written
/// before the option stay as they were.
public struct UDPKeepAlive: Sendable, Equatable {
    /// Time between KEEPALIVE datagrams, milliseconds.
    public var intervalMs: Int
    /// Intervals without a datagram from the server after which the peer is lost.
    public var missed: Int

    public init(intervalMs: Int, missed: Int) {
        self.intervalMs = intervalMs
        self.missed = missed
    }

    public static let key = "keepAlive"

    /// The silence after which the client declares its peer lost, seconds.
    public var timeoutSeconds: Double { Double(intervalMs * missed) / 1_000 }

    /// Reads `keepAlive {intervalMs, missed}`; nil when absent. Read only when given,
    /// so it joins the effective options (and the cell id) only then.
    static func read(_ options: PluginOptions) throws(InputError) -> UDPKeepAlive? {
        guard options.has(key) else { return nil }
        let o = try options.object(key)
        return UDPKeepAlive(
            intervalMs: try o.int("intervalMs", default: 500, range: 10...60_000),
            missed: try o.int("missed", default: 3, range: 1...100))
    }

    static let descriptors: [OptionDescriptor] = [
        OptionDescriptor(
            "\(key).intervalMs", type: "int", default: "off",
            help: "Send a KEEPALIVE every this many ms for the whole session; the server answers each (10-60000, 500 when keepAlive is given)."),
        OptionDescriptor(
            "\(key).missed", type: "int", default: "3",
            help: "Declare the peer lost (and fail the cell) after this many intervals with nothing from the server (1-100)."),
    ]
}

extension UDPPlugin {
    /// With a keepalive the client gives up after `intervalMs` x `missed` of silence;
    /// without one UDP never notices a dead peer.
    public var deadPeerTimeoutSeconds: Double? { options.keepAlive?.timeoutSeconds }
}

/// The client's keepalive clock: when the next KEEPALIVE is due and when silence has
/// lasted long enough to declare the peer lost. Pure logic on nanosecond timestamps,
/// so the client's socket loops only ask it.
struct UDPKeepAliveClock {
    let intervalNanos: UInt64
    let timeoutNanos: UInt64
    /// Last time anything of the session came from the server.
    private(set) var lastHeard: UInt64
    private var nextDue: UInt64
    /// KEEPALIVEs sent; the next one's sequence number.
    private(set) var sent: UInt64 = 0

    init(_ k: UDPKeepAlive, start: UInt64) {
        intervalNanos = UInt64(k.intervalMs) * 1_000_000
        timeoutNanos = intervalNanos * UInt64(k.missed)
        lastHeard = start
        nextDue = start + intervalNanos
    }

    /// A datagram of the session arrived from the server: the peer is alive.
    mutating func heard(at now: UInt64) { lastHeard = max(lastHeard, now) }

    /// The sequence number of a KEEPALIVE to send now, if one is due.
    mutating func takeDue(now: UInt64) -> UInt64? {
        guard now >= nextDue else { return nil }
        // Behind schedule (a blocked send): one now, the next a whole interval later.
        nextDue = max(nextDue + intervalNanos, now + intervalNanos / 2)
        defer { sent += 1 }
        return sent
    }

    /// When silence since `lastHeard` reaches the timeout: the moment the peer is lost.
    var lostAt: UInt64 { lastHeard + timeoutNanos }

    func isLost(now: UInt64) -> Bool { now >= lostAt }

    /// How long a receive may block before this clock needs a look.
    func nanosUntilNext(now: UInt64) -> UInt64 {
        let next = min(nextDue, lostAt)
        return next > now ? next - now : 0
    }
}
