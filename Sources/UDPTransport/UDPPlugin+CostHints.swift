import PeerBenchPlugin

extension UDPPlugin {
    /// A pipelined prober waits for the echoes of lost probes (its straggler wait), and an
    /// unpaced sender does not wait for the link: where the link's queue drops, the bulk
    /// phase is over once the sender is done and the queue has drained (docs/UNATTENDED.md,
    /// "Estimates": 43 s recorded against 231 s estimated before, field-study run of 2026-11-29).
    public func costHints(link: ResolvedLink) -> CostHints {
        CostHints(waitsForLostProbes: true, endsWhenSenderIsDone: options.rateMbps == nil)
    }
}
