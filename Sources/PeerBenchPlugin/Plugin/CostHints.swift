/// What a transport does to a cell's time that the runner's generic estimate cannot know
/// (`TransportPlugin.costHints(link:)`; docs/UNATTENDED.md, "Estimates"). The defaults
/// describe a transport that fills the link, never waits for a lost probe, and ends its
/// bulk phase when the last byte arrived.
public struct CostHints: Sendable, Equatable {
    /// Share of the link's usable rate (`ResolvedLink.rateMbps` after loss) the bulk phase reaches.
    public var bulkRateShare: Double
    /// Pipelined probes: an unanswered one is waited for (an unreliable transport's straggler wait).
    public var waitsForLostProbes: Bool
    /// An unpaced sender on a link whose queue drops (`ResolvedLink.queueBytes`): the bulk
    /// phase ends once the sender is done and that queue has drained, not after every byte.
    public var endsWhenSenderIsDone: Bool
    /// A reliable transport's recovery on a lossy link: its bulk phase takes
    /// 1 + lossRecovery x loss^2 times what the rate after loss gives (loss a fraction,
    /// `ResolvedLink.lossPercent` / 100). 0: the loss costs only its share of the rate.
    /// (A cost per lost packet, whatever the rate, fitted on the same cells, put
    /// matrices/field-study-2025.json at 1.20 times its actual time, this 1.04.)
    public var lossRecovery: Double
    /// A congestion window that starts at this many bytes and doubles every round trip
    /// (slow start): the bulk phase also pays the round trips it takes to grow to the
    /// window that fills the link, or holds the whole payload. nil: it sends at once.
    public var initialWindowBytes: Int?

    public init(
        bulkRateShare: Double = 1, waitsForLostProbes: Bool = false, endsWhenSenderIsDone: Bool = false, lossRecovery: Double = 0,
        initialWindowBytes: Int? = nil
    ) {
        self.bulkRateShare = bulkRateShare
        self.waitsForLostProbes = waitsForLostProbes
        self.endsWhenSenderIsDone = endsWhenSenderIsDone
        self.lossRecovery = lossRecovery
        self.initialWindowBytes = initialWindowBytes
    }
}
