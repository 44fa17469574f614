import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// When a pipelined probe run (`RTTMethod.pipelined`) sent and heard back, for the
/// record's `extra.rtt_pipelined` (docs/RECORDS.md): it shows that the probes really
/// were in flight together (`send_ms` below `first_echo_ms`) and how long the whole
/// run took (`last_echo_ms`), which ping-pong would stretch to the sum of the RTTs.
public struct PipelinedProbeTimes: Sendable, Equatable {
    /// The key under `TransportMeasurement.extra`.
    public static let extraKey = "rtt_pipelined"
    /// `MonotonicClock` times: the first and last probe handed to the transport (after
    /// its send returned), the first and last echo received; nil when none.
    public var firstSentAt: UInt64?
    public var lastSentAt: UInt64?
    public var firstEchoAt: UInt64?
    public var lastEchoAt: UInt64?

    public init() {}

    /// Waits until probe `seq`'s send time, `first send + seq x spacing` (on schedule,
    /// so a late send does not shift the ones after it); returns at once with no spacing
    /// or before probe 0 was sent. Anchored on probe 0's send, however late that was, the
    /// probes leave at least `spacing` apart from it (a schedule anchored before it shrank
    /// the span under load).
    public func waitForSend(_ seq: Int, spacing: UInt64) {
        guard spacing > 0, let start = firstSentAt else { return }
        MonotonicClock.sleep(until: start &+ UInt64(seq) &* spacing)
    }

    /// A probe was handed to the transport at `at`.
    public mutating func sent(at: UInt64) {
        if firstSentAt == nil { firstSentAt = at }
        lastSentAt = at
    }

    /// An echo arrived at `at`.
    public mutating func echoed(at: UInt64) {
        if firstEchoAt == nil { firstEchoAt = at }
        lastEchoAt = at
    }

    /// `{"send_ms", "first_echo_ms", "last_echo_ms"}`, each from the first probe's send,
    /// milliseconds; an echo figure is null when no echo came.
    public var json: JSONValue {
        func ms(_ t: UInt64?) -> JSONValue {
            guard let t, let start = firstSentAt else { return .null }
            return .number(t >= start ? Double(t - start) / 1e6 : -Double(start - t) / 1e6)
        }
        var o = JSONObject()
        o["send_ms"] = ms(lastSentAt)
        o["first_echo_ms"] = ms(firstEchoAt)
        o["last_echo_ms"] = ms(lastEchoAt)
        return .object(o)
    }
}
