import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// udp's pacing (`rateMbps`): the workloads' absolute `MessageSchedule`, one datagram's
/// payload at the rate apart, so rounding and late wake-ups do not accumulate; and a
/// wait that sleeps on CLOCK_MONOTONIC with an absolute deadline until shortly before
/// the due time and spins the rest: the scheduler wakes sleepers tens of microseconds
/// late, which at 1 ms intervals would be a visible rate error.
extension MessageSchedule {
    /// How early `waitPrecisely` stops sleeping and starts spinning.
    static let spinNanos: UInt64 = 100_000

    /// Pacing for `payloadBytes` per datagram at `rateMbps` of payload, from `start`.
    init(rateMbps: Double, payloadBytes: Int, start: UInt64) {
        self.init(intervalNanos: Double(max(payloadBytes, 1)) * 8 / (rateMbps * 1e6) * 1e9, start: start)
    }

    /// Blocks until `deadline` (monotonic nanoseconds).
    static func waitPrecisely(until deadline: UInt64) {
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
