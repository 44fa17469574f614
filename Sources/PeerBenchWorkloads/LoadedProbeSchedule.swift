import PeerBenchPlugin
import PeerBenchSystem

/// When the next loaded probe is due: one interval after the bulk phase starts, then
/// every interval. A sender that fell behind (a blocked write) sends one probe and
/// waits a whole interval again instead of a burst that would queue behind itself.
public struct LoadedProbeSchedule: Sendable {
    /// Time between probes, nanoseconds; nil: loaded probes are off.
    public let intervalNanos: UInt64?
    /// Probes handed out so far; the next probe's sequence number.
    public private(set) var sent = 0
    private var next = UInt64.max

    /// The schedule of `probes` (nil: off, nothing is ever due).
    public init(_ probes: LoadedRttProbes?) {
        intervalNanos = probes?.intervalNanos
    }

    /// Starts the schedule at the bulk phase's first send.
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
