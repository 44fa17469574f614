/// What the emulator needs beyond the summary values of a `ResolvedLink`: the channel
/// schedule, burst loss, the radio's time variation and the queue. The radio model
/// puts one in `ResolvedLink.channel`; tests and users with fixed links may build
/// their own. A link without one is emulated with an always-on channel, independent
/// loss and default queue limits.
public struct EmulatedChannel: Sendable, Equatable {
    /// The AWDL on/off channel sequence.
    public var schedule: ChannelSchedule
    /// Bursty loss (Gilbert-Elliott); nil = every loss decision is independent.
    public var burstLoss: BurstLoss?
    /// Time variation of the radio channel; nil = the summary values hold throughout.
    public var radio: RadioDynamics?
    /// The drop-tail queue in front of the transmitter, per direction.
    public var queue: QueueLimits
    /// How the cell's scenario changes the link over time; nil = static.
    public var scenario: ScenarioTimeline?
    /// The 802.11 MAC's aggregates (`FrameAggregation`); nil = air time by bytes alone
    /// at the link's rate (fixed links).
    public var aggregation: FrameAggregation?
    /// With `aggregation`: the rate frames are serialised at while on channel, bits per
    /// second (the PHY rate times the pair's share of the air, not the long-run rate).
    public var airRateBitsPerSecond: Double?
    /// True: a sender faster than the link is held back by its socket (a flow-controlled
    /// driver, the sender-side shaper); false: the queue overflows and drops, as the
    /// phones' Wi-Fi driver queue did (docs/LINK-MODEL.md section 4b).
    public var backpressure = true

    public init(
        schedule: ChannelSchedule = .alwaysOn, burstLoss: BurstLoss? = nil, radio: RadioDynamics? = nil,
        queue: QueueLimits = .default
    ) {
        self.schedule = schedule
        self.burstLoss = burstLoss
        self.radio = radio
        self.queue = queue
    }
}

/// Gilbert-Elliott loss: a good state that delivers and a bad state that loses,
/// with transition probabilities chosen so that the long-run loss equals the link's
/// loss probability and lost packets come in bursts of `meanBurstPackets` on average.
///
/// The burst state is a property of the radio at a moment, not of the packet count:
/// after a pause longer than `memoryMs` the state is drawn afresh from its long-run
/// distribution. Otherwise a sparse sender (QUIC Initials or TCP SYNs spaced by
/// exponential back-off) would stay "in a burst" across seconds of silence.
public struct BurstLoss: Sendable, Equatable {
    /// Mean number of consecutive packets lost in one burst (>= 1).
    public var meanBurstPackets: Double
    /// How long the burst state persists without packets, milliseconds [A].
    public var memoryMs: Double
    public init(meanBurstPackets: Double, memoryMs: Double = 50) {
        self.meanBurstPackets = max(1, meanBurstPackets)
        self.memoryMs = memoryMs
    }
}

/// Bounds of a drop-tail queue. A packet that would exceed either is dropped.
public struct QueueLimits: Sendable, Equatable {
    public var packets: Int
    public var bytes: Int
    public init(packets: Int, bytes: Int) {
        self.packets = packets
        self.bytes = bytes
    }
    /// 1 000 packets (Linux's default txqueuelen) and 4 MiB [A]: ample for the
    /// rates and delays PeerBench emulates, so drops come from the link, not the queue.
    public static let `default` = QueueLimits(packets: 1_000, bytes: 4 << 20)
}

/// The radio channel's variation over time, as the radio model derives it for one
/// environment and distance. The emulator evolves it on a fixed time grid from the
/// cell's seed, so the same seed gives the same channel trace.
public struct RadioDynamics: Sendable, Equatable {
    /// Median SNR at this distance, dB.
    public var medianSnrDb: Double
    /// Log-normal shadowing standard deviation, dB.
    public var shadowingSigmaDb: Double
    /// Correlation time of the shadowing (Gauss-Markov), milliseconds.
    public var shadowingCorrelationMs: Double
    /// Body-blocking episodes per second (Poisson onsets); 0 = none.
    public var blockingPerSecond: Double
    /// Mean length of a blocking episode, milliseconds (exponential).
    public var blockingMeanMs: Double
    /// Extra attenuation during an episode, dB, drawn uniformly from this range.
    public var blockingDepthDb: ClosedRange<Double>
    /// Time grid on which the channel state is updated, milliseconds.
    public var stepMs: Double = 10
    /// Share of the MCS's usable rate (PHY x MAC efficiency) that the link carries
    /// (`RadioEnvironment.rateFactor`); 1 = all of it.
    public var rateFactor: Double = 1
    /// SNR above an MCS's threshold before rate adaptation uses it (`MCSTable.select`).
    public var adaptationMarginDb: Double = MCSTable.adaptationMarginDb
    /// Share of the PHY rate the MAC leaves for IP packets: `MCSTable.macEfficiency`,
    /// or 1 where the emulator charges the MAC frame by frame (`FrameAggregation`).
    public var macEfficiency: Double = MCSTable.macEfficiency

    public init(
        medianSnrDb: Double, shadowingSigmaDb: Double, shadowingCorrelationMs: Double,
        blockingPerSecond: Double, blockingMeanMs: Double, blockingDepthDb: ClosedRange<Double>
    ) {
        self.medianSnrDb = medianSnrDb
        self.shadowingSigmaDb = shadowingSigmaDb
        self.shadowingCorrelationMs = shadowingCorrelationMs
        self.blockingPerSecond = blockingPerSecond
        self.blockingMeanMs = blockingMeanMs
        self.blockingDepthDb = blockingDepthDb
    }
}

/// The per-packet loss decision: independent, or Gilbert-Elliott when `burst` is set.
/// In the Gilbert-Elliott case the bad state (every packet lost) lasts
/// `meanBurstPackets` packets on average and is entered just often enough that the
/// long-run loss equals `probability`.
struct LossProcess {
    private(set) var inBadState = false
    private var lastDecision: UInt64?

    /// `draw` and `transition` are uniform in [0, 1); callers always draw both, so the
    /// random stream advances the same way whatever the outcome. `at` (nanoseconds,
    /// any fixed origin) lets the burst state expire over a pause; nil = no expiry.
    @inline(__always)
    mutating func isLost(probability: Double, burst: BurstLoss?, draw: Double, transition: Double, at now: UInt64? = nil) -> Bool {
        guard probability > 0 else {
            inBadState = false
            return false
        }
        guard let burst, probability < 1 else { return draw < probability }
        if let now {
            defer { lastDecision = now }
            if let last = lastDecision, Double(now &- last) > burst.memoryMs * 1e6 {
                // After a pause the radio has moved on: start from the long-run state.
                inBadState = draw < probability
                return inBadState
            }
        }
        var leaveBad = 1 / burst.meanBurstPackets
        var enterBad = probability * leaveBad / (1 - probability)
        if enterBad > 1 {
            // Near-total loss: bursts must get longer than asked, or the long-run loss
            // (enter / (enter + leave)) would fall short of `probability`.
            enterBad = 1
            leaveBad = (1 - probability) / probability
        }
        inBadState = inBadState ? transition >= leaveBad : transition < enterBad
        return inBadState
    }
}
