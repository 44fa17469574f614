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

    public init(bulkRateShare: Double = 1, waitsForLostProbes: Bool = false, endsWhenSenderIsDone: Bool = false) {
        self.bulkRateShare = bulkRateShare
        self.waitsForLostProbes = waitsForLostProbes
        self.endsWhenSenderIsDone = endsWhenSenderIsDone
    }
}
