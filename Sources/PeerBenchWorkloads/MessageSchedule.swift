import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// When each message of a run is due: message i at `start + i x intervalNanos`, an
/// absolute schedule, so rounding and late wake-ups do not accumulate (a sender that
/// woke late sends what is due at once and is back on schedule).
public struct MessageSchedule: Sendable, Equatable {
    /// Nanoseconds between message starts.
    public let intervalNanos: Double
    public let start: UInt64

    public init(intervalNanos: Double, start: UInt64) {
        self.intervalNanos = intervalNanos
        self.start = start
    }

    /// The sending application's loop (`AppLoop.sendNanos`) from `start`; nil when it has
    /// no send cost.
    public init?(_ loop: AppLoop, start: UInt64) {
        guard loop.sendNanos > 0 else { return nil }
        self.init(intervalNanos: Double(loop.sendNanos), start: start)
    }

    /// When message `index` is due.
    @inline(__always)
    public func due(_ index: Int) -> UInt64 { start &+ UInt64(Double(index) * intervalNanos) }

    /// How many messages (counting from 0) are due at `now`.
    @inline(__always)
    public func dueCount(at now: UInt64) -> Int {
        guard now >= start else { return 0 }
        return Int(Double(now - start) / intervalNanos) + 1
    }

    /// Sleeps until message `index` is due, unless it is due within `slackNanos`: a
    /// sleep shorter than the scheduler's wake-up delay would only make the sender late,
    /// so such a message goes at once and the next sleep takes the schedule back.
    public func wait(for index: Int, slackNanos: UInt64 = 50_000) {
        let due = due(index)
        if due > MonotonicClock.now() &+ slackNanos { MonotonicClock.sleep(until: due) }
    }
}

extension AppLoop {
    /// The key of the record's `extra` under which a plugin that honours the app loop says so.
    public static let extraKey = "app_loop"

    /// `extra.app_loop`: the costs in microseconds (docs/RECORDS.md); nil when none.
    public var extra: JSONValue? {
        guard !isNone else { return nil }
        var o = JSONObject()
        o["send_us"] = .number(Double(sendNanos) / 1_000)
        o["receive_us"] = .number(Double(receiveNanos) / 1_000)
        return .object(o)
    }
}
