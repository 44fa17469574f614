public import PeerBenchJSON
public import PeerBenchPlugin

/// quic's `migrate` option (docs/protocol/quic.md, section 4d): when the client's path
/// stops working while the connection is alive (its UDP 4-tuple blackholed by a NAT
/// rebinding or an interface change), the client moves the same connection to a new
/// local port, without a new handshake.
public struct MigrationPolicy: Sendable, Equatable {
    /// The matrix key.
    public static let key = "migrate"
    /// The path is judged dead after this many probe timeouts without a datagram from
    /// the server while data is in flight.
    public var afterPTOs: Int
    /// Migration attempts one connection may make (each uses one or two of the server's
    /// spare connection IDs; the server issues 3 at a time, `active_connection_id_limit` 4).
    public static let maxMigrations = 8
    /// The silence is at least this long (a loopback PTO is ~26 ms, mostly the 25 ms
    /// ACK delay: three of them would move on a scheduling hiccup)...
    public static let minSilenceNanos: UInt64 = 150_000_000
    /// ...and at most this long (a long RTT or variance must not delay the move past
    /// any idle timeout worth having).
    public static let maxSilenceNanos: UInt64 = 3_000_000_000

    public static let `default` = MigrationPolicy(afterPTOs: 3)

    public init(afterPTOs: Int) { self.afterPTOs = afterPTOs }

    /// The option: absent or false = off, true = the defaults, `{"afterPTOs": n}`.
    public static func read(_ options: PluginOptions) throws(InputError) -> MigrationPolicy? {
        guard options.has(key) else { return nil }
        switch try options.json(key) {
        case .bool(false)?: return nil
        case .bool(true)?: return .default
        case .object?:
            let o = try options.object(key)
            return MigrationPolicy(afterPTOs: try o.int("afterPTOs", default: Self.default.afterPTOs, range: 1...10))
        case let other:
            throw InputError(
                path: options.path.key(key).description,
                "expected true, false or an object {\"afterPTOs\": 3}, got \(other?.typeName ?? "null")")
        }
    }

    /// How long the path may stay silent, for a connection whose RTT estimator says
    /// `smoothedRTT` and `rttVariance` (ns): `afterPTOs` probe timeouts of RFC 9002
    /// (smoothed RTT + max(4 x variance, 1 ms) + the peer's 25 ms max_ack_delay),
    /// bounded by `minSilenceNanos` and `maxSilenceNanos`; doubled for each migration
    /// the connection already made (`moves`), since ngtcp2 starts a new path's RTT
    /// estimate afresh and a single first sample would make the next judgement hasty.
    func silenceNanos(smoothedRTT: UInt64, rttVariance: UInt64, moves: Int = 0) -> UInt64 {
        let pto = smoothedRTT + max(4 * rttVariance, 1_000_000) + 25_000_000
        let base = max(UInt64(afterPTOs) * pto, Self.minSilenceNanos)
        return min(base << UInt64(min(moves, 8)), Self.maxSilenceNanos)
    }

    /// What `peerbench list` prints for the option.
    static let descriptors: [OptionDescriptor] = [
        OptionDescriptor(
            key, type: "bool|object", default: "off",
            help:
                "Connection migration: when nothing comes from the server for afterPTOs probe timeouts (150 ms to 3 s) while data is in flight, the client moves the same connection to a new UDP socket (new local port), no new handshake; scenario.migrations counts it. true = the defaults."
        ),
        OptionDescriptor(
            "\(key).afterPTOs", type: "int", default: "\(MigrationPolicy.default.afterPTOs)",
            help: "Probe timeouts (RFC 9002: smoothed RTT + max(4 x RTT variance, 1 ms) + 25 ms) of silence before migrating (1-10)."),
    ]
}
