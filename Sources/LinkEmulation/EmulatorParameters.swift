public import PeerBenchPlugin

/// Everything one cell's emulator applies, per direction, in the emulator's units.
public struct EmulatorParameters: Sendable, Equatable {
    /// Propagation + MAC delay, nanoseconds.
    public var delayNanos: UInt64
    /// Standard deviation of the per-packet delay, nanoseconds (normal; order is kept,
    /// so a packet never overtakes its predecessor).
    public var jitterNanos: UInt64
    /// Independent (or, with `burstLoss`, long-run) loss probability when there is no
    /// time-varying radio channel.
    public var lossProbability: Double
    /// Serialisation rate during on-channel time, bits per second; nil = unlimited.
    public var rateBitsPerSecond: Double?
    public var schedule: ChannelSchedule
    public var burstLoss: BurstLoss?
    public var radio: RadioDynamics?
    public var queue: QueueLimits
    /// The cell's scenario (outages, added attenuation, delivery traces); nil = static.
    public var scenario: ScenarioTimeline?
    /// Interface MTU of both TUN devices.
    public var mtu: Int
    /// SCHED_FIFO priority of the emulator threads (0 = normal scheduling). Real-time
    /// priority keeps the release times precise while the endpoints load the CPU.
    public var realtimePriority: Int = 20
    /// Lets the TUN devices pass TCP super-packets when the link is lossless. Off forces
    /// one read and one write per IP packet (for measuring the plain path).
    public var allowSegmentationOffload = true
    /// The sender-side shaper that gives senders backpressure (see `SenderShaping`);
    /// nil = none (the kernel's default qdisc; an unpaced sender's excess is dropped in
    /// the emulator's queue). Links without a rate limit never get one.
    public var senderShaping: SenderShaping? = .default
    /// The MAC's aggregates (`FrameAggregation`); nil = air time by bytes alone.
    public var aggregation: FrameAggregation?
    /// With `aggregation`: the on-channel serialisation rate, bits per second (the PHY
    /// rate times the pair's share of the air); `rateBitsPerSecond` stays the usable
    /// rate, which the shaper (if any) enforces.
    public var airBitsPerSecond: Double?

    public init(
        delayNanos: UInt64 = 0, jitterNanos: UInt64 = 0, lossProbability: Double = 0, rateBitsPerSecond: Double? = nil,
        schedule: ChannelSchedule = .alwaysOn, burstLoss: BurstLoss? = nil, radio: RadioDynamics? = nil,
        queue: QueueLimits = .default, mtu: Int = 1_500
    ) {
        self.delayNanos = delayNanos
        self.jitterNanos = jitterNanos
        self.lossProbability = lossProbability
        self.rateBitsPerSecond = rateBitsPerSecond
        self.schedule = schedule
        self.burstLoss = burstLoss
        self.radio = radio
        self.queue = queue
        self.mtu = mtu
    }

    /// The parameters for a resolved link. Its `channel` (an `EmulatedChannel`) adds the
    /// schedule, burst loss, radio dynamics and queue; without one the link is
    /// always on with independent loss. `rateMbps` is the long-run average, so with an
    /// off-channel schedule the transmitter runs at rate / on-fraction while on channel.
    public init(_ link: ResolvedLink) {
        let channel = link.channel as? EmulatedChannel ?? EmulatedChannel()
        self.init(
            delayNanos: UInt64(max(0, (link.delayMs ?? 0) * 1e6)),
            jitterNanos: UInt64(max(0, (link.jitterMs ?? 0) * 1e6)),
            lossProbability: min(1, max(0, (link.lossPercent ?? 0) / 100)),
            rateBitsPerSecond: link.rateMbps.map { $0 * 1e6 / channel.schedule.onFraction },
            schedule: channel.schedule, burstLoss: channel.burstLoss, radio: channel.radio,
            queue: channel.queue, mtu: link.mtu ?? 1_500)
        scenario = channel.scenario
        aggregation = channel.aggregation
        airBitsPerSecond = channel.airRateBitsPerSecond
        if !channel.backpressure { senderShaping = nil }
    }

    /// The shaper for this cell: the on-channel rate (the resolved link's `rateMbps` /
    /// on-channel fraction; on an always-on link simply the rate) times the shaping
    /// factor. Not the long-run average: a static shaper cannot know when the channel
    /// is off, and at the average rate TCP could never make up for an off-channel
    /// slot (measured: 0.85 x the rate instead of 0.95 on a `bulk` link).
    var shaper: SenderShaper? {
        guard let s = senderShaping, let rate = rateBitsPerSecond, rate > 0 else { return nil }
        return SenderShaper(
            rateBitsPerSecond: UInt64((rate * s.rateFactor).rounded()),
            burstBytes: s.burstBytes, limitBytes: s.limitBytes)
    }

    /// True when no packet can be lost on the link: then the TUN devices may pass TCP
    /// super-packets (TSO), one loss decision per super-packet would be wrong otherwise.
    var isLossless: Bool { lossProbability == 0 && radio == nil && scenario == nil }

    /// Whether this cell's TUN devices use segmentation offload.
    var usesSegmentationOffload: Bool { allowSegmentationOffload && isLossless }
}
