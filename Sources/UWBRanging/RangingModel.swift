import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The seeded measurement model of one initiator's view of one peer.
///
/// Each call to `next(_:)` is one ranging round (one tick at the update rate). It
/// consumes a fixed number of random draws whatever the outcome, so the same seed
/// gives the same sequence of samples even when the network loses some rounds.
/// Figures and sources are in docs/UWB.md.
public struct RangingModel: Sendable {
    /// Line-of-sight noise, metres: within the 5–10 cm of the model [M: Heinrich et al. 2023 report < 20 cm errors].
    static let losSigmaMeters = 0.07
    /// Extra spread without line of sight, metres [A].
    static let nlosSigmaMeters = 0.15
    /// Median positive bias without line of sight, metres; lognormal, so 90 % fall in 0.2–0.85 m and ~2 % exceed 1 m [A].
    static let nlosBiasMedianMeters = 0.4
    static let nlosBiasLogSigma = 0.45
    /// Within this distance ranging works best [D]; beyond it noise and dropouts grow until the reach.
    static let bestRangeMeters = 9.0
    /// Half-angle of the direction cone out of the back of the phone, degrees (~120° field of view [A]).
    static let fieldOfViewHalfAngle = 60.0
    /// Angular noise of direction, degrees, in and out of line of sight [A].
    static let losAngleSigma = 3.0
    static let nlosAngleSigma = 10.0
    /// Start-up delay before the first measurement, seconds [A: 0.2–0.5 s].
    public static let startupRange = 0.2...0.5

    /// Reach of the pair: the shorter of the two chips' reaches.
    let reachMeters: Double
    /// Whether this pair can measure direction (both devices have antenna arrays: phones).
    public let directionCapable: Bool
    /// Seconds between rounds.
    public let interval: Double
    /// Delay between `run` and the first round, drawn once per session from the seed.
    public let startupDelaySeconds: Double

    private var rng: SeededRandom
    private var lineOfSight: Bool

    /// - Parameters:
    ///   - local, peer: the capabilities and chips of both devices (from their tokens).
    ///   - updateRateHz: rounds per second.
    ///   - seed: the cell's seed; the same seed replays the same samples.
    public init(local: DiscoveryToken, peer: DiscoveryToken, updateRateHz: Double, seed: UInt64, environment: EnvironmentProfile) {
        self.init(
            localChip: local.chip, peerChip: peer.chip,
            directionCapable: local.capabilities.contains(.direction) && peer.capabilities.contains(.direction),
            updateRateHz: updateRateHz, seed: seed, environment: environment)
    }

    public init(
        localChip: ChipGeneration, peerChip: ChipGeneration, directionCapable: Bool, updateRateHz: Double,
        seed: UInt64, environment: EnvironmentProfile
    ) {
        reachMeters = min(localChip.reachMeters, peerChip.reachMeters)
        self.directionCapable = directionCapable
        interval = 1 / max(updateRateHz, 0.001)
        var startup = SeededRandom(seed: seed, stream: "uwb.startup")
        startupDelaySeconds = startup.unit(Self.startupRange.lowerBound, Self.startupRange.upperBound)
        rng = SeededRandom(seed: seed, stream: "uwb.channel")
        // Start in the stationary distribution so short runs see the environment's odds.
        lineOfSight = !rng.chance(environment.nlosProbability)
    }

    /// The next round's sample in `scene`.
    public mutating func next(_ scene: RangingScene) -> RangingSample {
        let env = scene.environment
        // Two-state Markov chain with mean NLoS sojourn meanNLoSSeconds and stationary
        // NLoS fraction nlosProbability: leave NLoS with p = dt / mean, enter it with
        // p = leave * pN / (1 - pN).
        let leave = min(1, interval / max(env.meanNLoSSeconds, interval))
        let enter = env.nlosProbability >= 1 ? 1 : min(1, leave * env.nlosProbability / (1 - env.nlosProbability))
        let uState = rng.unit()
        lineOfSight = lineOfSight ? uState >= enter : uState < leave

        // Fixed draws per round, used or not, to keep the stream aligned.
        let uDrop = rng.unit(), gNoise = rng.normal(), gBias = rng.normal()
        let uDirDrop = rng.unit(), gAzimuth = rng.normal(), gElevation = rng.normal()

        let d = scene.distanceMeters
        guard d <= reachMeters else { return RangingSample(distance: nil, direction: nil, lineOfSight: lineOfSight) }
        // 0 within the best range, 1 at the reach.
        let degradation = reachMeters > Self.bestRangeMeters ? min(1, max(0, (d - Self.bestRangeMeters) / (reachMeters - Self.bestRangeMeters))) : 0
        let pDrop = (lineOfSight ? env.losDropout : env.nlosDropout) + 0.5 * degradation * degradation
        guard uDrop >= pDrop else { return RangingSample(distance: nil, direction: nil, lineOfSight: lineOfSight) }

        let sigma = (lineOfSight ? Self.losSigmaMeters : Self.nlosSigmaMeters) * (1 + 2 * degradation)
        let bias = lineOfSight ? 0 : Self.nlosBiasMedianMeters * exp(Self.nlosBiasLogSigma * gBias)
        let measured = max(0, d + bias + sigma * gNoise)

        var direction: SIMD3<Float>?
        let bearing = Self.normalized(scene.bearingDegrees)
        let pDirDrop = (lineOfSight ? 0.02 : 0.5) + degradation
        if directionCapable, abs(bearing) <= Self.fieldOfViewHalfAngle, uDirDrop >= pDirDrop {
            let angleSigma = lineOfSight ? Self.losAngleSigma : Self.nlosAngleSigma
            let az = (bearing + angleSigma * gAzimuth) * .pi / 180
            let el = (angleSigma * gElevation) * .pi / 180
            direction = SIMD3(Float(sin(az) * cos(el)), Float(sin(el)), Float(-cos(az) * cos(el)))
        }
        return RangingSample(distance: Float(measured), direction: direction, lineOfSight: lineOfSight)
    }

    /// Degrees into (−180, 180].
    static func normalized(_ degrees: Double) -> Double {
        var a = degrees.truncatingRemainder(dividingBy: 360)
        if a > 180 { a -= 360 }
        if a <= -180 { a += 360 }
        return a
    }
}
