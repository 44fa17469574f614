import PeerBenchJSON

/// What a stream client does when its connection is lost during the bulk phase: the
/// plugin option `"reconnect": true` (the defaults) or
/// `"reconnect": {"backoffMs": 100, "maxBackoffMs": 2000}`. Absent or `false` = off,
/// and the cell's bytes on the wire are exactly those of a cell without the option.
///
/// Attempt i (from 0) may take `delayNanos(attempt: i)` — the connect timeout of that
/// attempt — and the next attempt starts when that time is up, whether the attempt
/// failed at once (no route) or timed out (a SYN into a dead link). So once the link
/// is back, a new connection is made within one capped backoff plus the handshake's
/// round trips. Attempts go on until the cell's deadline (`CellContext.deadline`).
public struct ReconnectPolicy: Sendable, Equatable {
    /// The first attempt's time, nanoseconds.
    var backoffNanos: UInt64
    /// The cap the doubling stops at, nanoseconds.
    var maxBackoffNanos: UInt64

    /// The plugin option's key.
    public static let key = "reconnect"
    /// `"reconnect": true`.
    public static let `default` = ReconnectPolicy(backoffMs: 100, maxBackoffMs: 2_000)
    /// Connections a server accepts for one cell after the first: a client that keeps
    /// coming back (a bug, or a hostile peer over a remote link) cannot hold the server
    /// beyond this many. A 60 s cell with the default policy makes at most ~30 attempts,
    /// and only a successful one counts.
    public static let maxReconnects = 64

    /// A policy from milliseconds.
    public init(backoffMs: Int, maxBackoffMs: Int) {
        backoffNanos = UInt64(backoffMs) * 1_000_000
        maxBackoffNanos = UInt64(maxBackoffMs) * 1_000_000
    }

    /// The time attempt `attempt` (0 = the first after the loss) gets: backoff x 2^attempt,
    /// capped at the maximum.
    public func delayNanos(attempt: Int) -> UInt64 {
        // The cap (at most 600 s) is reached long before doubling could overflow.
        var d = backoffNanos
        var doublings = 0
        while doublings < attempt && d < maxBackoffNanos {
            d *= 2
            doublings += 1
        }
        return min(d, maxBackoffNanos)
    }

    /// Reads `reconnect`: nil when absent or `false`; `true` = `default`; an object
    /// reads `backoffMs` (1-60000, default 100) and `maxBackoffMs` (1-600000, default
    /// 2000, not below `backoffMs`). Anything else is an `InputError` naming the path.
    public static func read(_ options: PluginOptions) throws(InputError) -> ReconnectPolicy? {
        guard options.has(key) else { return nil }
        let path = options.path.key(key).description
        switch try options.json(key) {
        case .bool(false)?: return nil
        case .bool(true)?: return .default
        case .object?:
            let o = try options.object(key)
            let backoff = try o.int("backoffMs", default: 100, range: 1...60_000)
            let cap = try o.int("maxBackoffMs", default: max(2_000, backoff), range: 1...600_000)
            guard cap >= backoff else {
                throw InputError(
                    path: o.path.key("maxBackoffMs").description,
                    "\(cap) is below backoffMs (\(backoff)): the backoff doubles from backoffMs up to this cap")
            }
            return ReconnectPolicy(backoffMs: backoff, maxBackoffMs: cap)
        case let other:
            throw InputError(
                path: path, "expected true, false or an object {\"backoffMs\": 100, \"maxBackoffMs\": 2000}, got \(other?.typeName ?? "null")")
        }
    }

    /// `read`, refused without the transport's loss detection (`detectedBy` false;
    /// `missing` names the option and why) or beside the transport's loaded RTT probes
    /// (`withLoadedRttProbes`), which are not carried across a reconnect.
    public static func read(
        _ options: PluginOptions, detectedBy detection: Bool, withLoadedRttProbes loaded: Bool,
        missing: String
    ) throws(InputError) -> ReconnectPolicy? {
        guard let policy = try read(options) else { return nil }
        let path = options.path.key(key).description
        guard detection else { throw InputError(path: path, "reconnect needs \(missing)") }
        guard !loaded else {
            throw InputError(
                path: path,
                "reconnect cannot be combined with loadedRttProbes yet: the loaded probes are not carried across a re-made connection")
        }
        return policy
    }

    /// What `peerbench list` prints for the option.
    public static let descriptors: [OptionDescriptor] = [
        OptionDescriptor(
            key, type: "bool|object", default: "off",
            help:
                "After the plugin's own loss detection in the bulk phase (tcp, tls: userTimeoutMs; udp: keepAlive), connect again (udp: ask the peer again) and resume where the server got to, no message counted twice; true = the defaults below."
        ),
        OptionDescriptor(
            "\(key).backoffMs", type: "int", default: "100",
            help: "The first reconnect attempt's time (connect timeout and wait), doubling per attempt (1-60000 ms)."),
        OptionDescriptor(
            "\(key).maxBackoffMs", type: "int", default: "2000",
            help: "The cap of the doubling backoff (1-600000 ms, not below backoffMs); attempts go on until the cell's deadline."),
    ]
}
