public import PeerBenchPlugin
import PeerBenchTestbed

/// What a scenario does to the link over time, in the emulator's units: nanoseconds on
/// the cell's link clock (0 = the emulator's start), the clock the radio channel trace
/// runs on. Pure and deterministic: the same timeline gives the same answers for the
/// same times, so a cell's seed still fixes everything random about its link.
public struct ScenarioTimeline: Sendable, Equatable {
    /// Stretches in which nothing crosses either way, `[start, end)`.
    public var outages: [Range<UInt64>] = []
    /// Extra attenuation sampled every `attenuationStepNanos` from 0 (walk-away: the
    /// path loss added by the distance walked); the last sample holds afterwards.
    public var attenuationDb: [Double] = []
    public var attenuationStepNanos: UInt64 = 100_000_000
    /// A person passing between the devices, again and again.
    public var block: PeriodicBlock?
    /// Recorded delivery opportunities that replace the link's rate, per direction.
    public var traceUp: DeliveryOpportunities?
    public var traceDown: DeliveryOpportunities?

    public init() {}

    /// True when `t` falls inside an outage.
    @inline(__always)
    public func isOut(at t: UInt64) -> Bool {
        for o in outages where o.contains(t) { return true }
        return false
    }

    /// Attenuation the scenario adds to the radio channel at `t`, dB.
    @inline(__always)
    public func extraAttenuationDb(at t: UInt64) -> Double {
        var db = 0.0
        if !attenuationDb.isEmpty { db += attenuationDb[min(Int(t / attenuationStepNanos), attenuationDb.count - 1)] }
        if let block, block.isBlocked(at: t) { db += block.depthDb }
        return db
    }

    /// True when the scenario changes the radio channel's SNR (so it needs one).
    public var attenuates: Bool { !attenuationDb.isEmpty || block != nil }
}

/// Extra attenuation of `depthDb` during `[k * period, k * period + length)` for k >= 1.
public struct PeriodicBlock: Sendable, Equatable {
    public var depthDb: Double
    public var lengthNanos: UInt64
    public var periodNanos: UInt64

    public init(depthDb: Double, lengthNanos: UInt64, periodNanos: UInt64) {
        precondition(periodNanos > 0 && lengthNanos < periodNanos)
        self.depthDb = depthDb
        self.lengthNanos = lengthNanos
        self.periodNanos = periodNanos
    }

    @inline(__always)
    public func isBlocked(at t: UInt64) -> Bool { t >= periodNanos && t % periodNanos < lengthNanos }
}

/// A mahimahi trace in nanoseconds: opportunity times within one period, each carrying
/// up to `bytesPerOpportunity` bytes; the pattern repeats every `periodNanos`.
public struct DeliveryOpportunities: Sendable, Equatable {
    public var timesNanos: [UInt64]
    public var periodNanos: UInt64
    public var bytesPerOpportunity: Int

    public init(_ trace: MahimahiTrace) {
        timesNanos = trace.opportunitiesMs.map { UInt64($0) * 1_000_000 }
        periodNanos = UInt64(trace.periodMs) * 1_000_000
        bytesPerOpportunity = MahimahiTrace.bytesPerOpportunity
    }
}

/// Where one direction stands in its trace: which opportunity is next and how many of
/// its bytes are still free. Packets use opportunities in order; an opportunity nobody
/// used by its time is gone (as in mahimahi's link shell); one packet larger than an
/// opportunity uses as many as it needs, several small packets may share one.
struct TraceCursor {
    let trace: DeliveryOpportunities
    private var cycle: UInt64 = 0
    private var index = 0
    private var bytesLeft: Int

    init(_ trace: DeliveryOpportunities) {
        self.trace = trace
        bytesLeft = trace.bytesPerOpportunity
    }

    private var current: UInt64 { cycle &* trace.periodNanos &+ trace.timesNanos[index] }

    private mutating func advance() {
        index += 1
        if index == trace.timesNanos.count {
            index = 0
            cycle += 1
        }
        bytesLeft = trace.bytesPerOpportunity
    }

    /// When a packet of `bytes` that may leave at `t` has been carried: the time of the
    /// last opportunity it needs.
    mutating func departure(earliest t: UInt64, bytes: Int) -> UInt64 {
        if current < t {
            bytesLeft = trace.bytesPerOpportunity
            // Skip whole periods at once after a long pause.
            if t - current > trace.periodNanos { cycle += (t - current) / trace.periodNanos - 1 }
            while current < t { advance() }
        }
        var need = max(bytes, 1)
        var last = current
        while need > 0 {
            let take = min(bytesLeft, need)
            bytesLeft -= take
            need -= take
            last = current
            if bytesLeft == 0 { advance() }
        }
        return last
    }
}
