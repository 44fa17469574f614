#if canImport(Glibc)
    import Glibc
#endif

/// Nanoseconds on CLOCK_MONOTONIC: the only clock used for measurements.
public enum MonotonicClock {
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Nanoseconds from `start` to now.
    @inline(__always)
    public static func elapsed(since start: UInt64) -> UInt64 { now() &- start }

    /// Sleeps until `deadline` (absolute, this clock) with clock_nanosleep; returns at once
    /// when it has passed.
    public static func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}

extension UInt64 {
    /// Nanoseconds as milliseconds.
    public var milliseconds: Double { Double(self) / 1e6 }
    /// Nanoseconds as seconds.
    public var seconds: Double { Double(self) / 1e9 }
}
