/// RTT probes during the bulk phase (latency under load, docs/RECORDS.md `rtt_loaded_ms`):
/// the plugin option `"loadedRttProbes": {"intervalMs": 100}`, shared by every plugin
/// that supports it (tcp, tls, udp, quic). Absent means off, so the field study's figures
/// stay as they were: probes ride on the data they measure and cost it some throughput.
public struct LoadedRttProbes: Sendable, Equatable {
    /// Time between probes, nanoseconds.
    public var intervalNanos: UInt64

    public init(intervalMs: Double) {
        intervalNanos = UInt64(intervalMs * 1e6)
    }

    public static let key = "loadedRttProbes"

    /// Reads `loadedRttProbes {intervalMs}`; nil when the option is absent (off).
    /// Only a present option is read, so records of runs without it are unchanged.
    public static func read(_ options: PluginOptions) throws(InputError) -> LoadedRttProbes? {
        guard options.has(key) else { return nil }
        let o = try options.object(key)
        let ms = try o.double("intervalMs", default: 100, range: 1...60_000) ?? 100
        return LoadedRttProbes(intervalMs: ms)
    }

    /// What `peerbench list` prints for the option.
    public static let descriptors: [OptionDescriptor] = [
        OptionDescriptor("\(key).intervalMs", type: "number", default: "off",
                         help: "Send an RTT probe every this many ms during the bulk phase, on the same flow (rtt_loaded_ms); absent = off (1-60000)."),
    ]
}

/// When the next loaded probe is due: one interval after the bulk phase starts, then
/// every interval. A sender that fell behind (a blocked write) sends one probe and
/// waits a whole interval again instead of a burst that would queue behind itself.
public struct LoadedProbeSchedule: Sendable {
    public let intervalNanos: UInt64?
    /// Probes handed out so far; the next probe's sequence number.
    public private(set) var sent = 0
    private var next = UInt64.max

    public init(_ probes: LoadedRttProbes?) {
        intervalNanos = probes?.intervalNanos
    }

    public mutating func begin(at start: UInt64) {
        if let intervalNanos { next = start + intervalNanos }
    }

    /// The sequence number of a probe to send now, if one is due.
    public mutating func takeDue(now: UInt64 = MonotonicClock.now()) -> Int? {
        guard let intervalNanos, now >= next else { return nil }
        next = max(next + intervalNanos, now + intervalNanos / 2)
        sent += 1
        return sent - 1
    }

    /// Nanoseconds until the next probe is due (0 when overdue).
    public func nanosUntilDue(now: UInt64 = MonotonicClock.now()) -> UInt64 {
        next > now ? next - now : 0
    }
}
