import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The radio channel's state over time for one cell: SNR = median + shadowing -
/// blocking, advanced on a fixed grid from a seeded generator. Each emulator
/// direction runs its own copy from the same seed, so both see the same trace
/// (the radio channel is reciprocal) without sharing state across threads.
struct ChannelTrace {
    private let dynamics: RadioDynamics
    private var random: SeededRandom
    private let stepNanos: UInt64
    private let rho: Double
    private let innovation: Double
    private var shadowDb: Double
    private var blockingLeftNanos: UInt64 = 0
    private var blockingDepthDb: Double = 0
    private var nextStepAt: UInt64 = 0
    /// The cell's scenario: attenuation added on top of fading (walk-away, body-block).
    private let scenario: ScenarioTimeline?
    private var scenarioDb = 0.0

    /// SNR now, dB.
    private(set) var snrDb: Double
    /// Usable rate during on-channel time now, bits per second (0 = no link).
    private(set) var rateBitsPerSecond: Double
    /// Packet loss probability now.
    private(set) var lossProbability: Double

    init(_ dynamics: RadioDynamics, seed: UInt64, scenario: ScenarioTimeline? = nil) {
        self.dynamics = dynamics
        self.scenario = scenario?.attenuates == true ? scenario : nil
        random = SeededRandom(seed: seed, stream: 3)
        stepNanos = UInt64(max(dynamics.stepMs, 0.1) * 1e6)
        // Gauss-Markov shadowing: correlation exp(-step/tau) between grid points,
        // innovations scaled so the marginal stays N(0, sigma).
        rho = dynamics.shadowingCorrelationMs > 0 ? exp(-dynamics.stepMs / dynamics.shadowingCorrelationMs) : 0
        innovation = dynamics.shadowingSigmaDb * (1 - rho * rho).squareRoot()
        shadowDb = dynamics.shadowingSigmaDb * random.normal()
        snrDb = dynamics.medianSnrDb
        rateBitsPerSecond = 0
        lossProbability = 0
        update()
    }

    /// Advances the trace to `t` nanoseconds after the cell's start.
    @inline(__always)
    mutating func advance(to t: UInt64) {
        while t >= nextStepAt {
            // The scenario's attenuation for the grid step starting now.
            if let scenario { scenarioDb = scenario.extraAttenuationDb(at: nextStepAt) }
            nextStepAt += stepNanos
            step()
        }
    }

    private mutating func step() {
        shadowDb = rho * shadowDb + innovation * random.normal()
        // Always draw the same number of values per step, so the trace depends on the seed only.
        let onset = random.unit(), length = random.exponential(mean: dynamics.blockingMeanMs * 1e6), depth = random.unit()
        if blockingLeftNanos > stepNanos {
            blockingLeftNanos -= stepNanos
        } else {
            blockingLeftNanos = 0
            blockingDepthDb = 0
            if dynamics.blockingPerSecond > 0 && onset < 1 - exp(-dynamics.blockingPerSecond * Double(stepNanos) / 1e9) {
                blockingLeftNanos = UInt64(length)
                let r = dynamics.blockingDepthDb
                blockingDepthDb = r.lowerBound + depth * (r.upperBound - r.lowerBound)
            }
        }
        update()
    }

    private mutating func update() {
        snrDb = dynamics.medianSnrDb + shadowDb - blockingDepthDb - scenarioDb
        if let mcs = MCSTable.select(snrDb: snrDb, marginDb: dynamics.adaptationMarginDb) {
            rateBitsPerSecond = MCSTable.phyRateMbps(mcs) * dynamics.macEfficiency * dynamics.rateFactor * 1e6
        } else {
            // Below MCS 0 the radio still tries at MCS 0; the loss cliff decides what crosses.
            rateBitsPerSecond = MCSTable.phyRateMbps(MCSTable.entries[0]) * dynamics.macEfficiency * dynamics.rateFactor * 1e6
        }
        lossProbability = MCSTable.lossProbability(snrDb: snrDb)
    }
}
