import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Spaces datagrams so the application payload leaves at `rateMbps`.
///
/// Datagram i is due at `start + i * interval` (an absolute schedule, so rounding
/// and late wake-ups do not accumulate). Waiting sleeps on CLOCK_MONOTONIC with an
/// absolute deadline until shortly before the due time and spins the rest: the
/// scheduler wakes sleepers tens of microseconds late, which at 1 ms intervals would
/// be a visible rate error.
struct UDPPacer {
    /// Nanoseconds between datagram starts.
    let intervalNanos: Double
    let start: UInt64
    /// How early to stop sleeping and start spinning.
    static let spinNanos: UInt64 = 100_000

    /// Pacing for `payloadBytes` per datagram at `rateMbps` of payload, from `start`.
    init(rateMbps: Double, payloadBytes: Int, start: UInt64) {
        intervalNanos = Double(max(payloadBytes, 1)) * 8 / (rateMbps * 1e6) * 1e9
        self.start = start
    }

    /// When datagram `index` is due.
    @inline(__always)
    func due(_ index: Int) -> UInt64 { start &+ UInt64(Double(index) * intervalNanos) }

    /// How many datagrams (counting from 0) are due at `now`.
    @inline(__always)
    func dueCount(at now: UInt64) -> Int {
        guard now >= start else { return 0 }
        return Int(Double(now - start) / intervalNanos) + 1
    }

    /// Blocks until `deadline` (monotonic nanoseconds).
    static func wait(until deadline: UInt64) {
        var now = MonotonicClock.now()
        if deadline > now + spinNanos {
            let wake = deadline - spinNanos
            var ts = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
            now = MonotonicClock.now()
        }
        while now < deadline { now = MonotonicClock.now() }
    }
}
