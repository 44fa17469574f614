import PeerBenchPlugin

extension TCPPlugin {
    /// Linux's TCP (CUBIC) over a radio link's availability windows reaches about 0.7 of
    /// the link's usable rate: 0.54-0.86 (medians per payload) in the per-cell times of the
    /// field-study run of 2026-11-29 (docs/UNATTENDED.md, "Estimates"); it fills a fixed link.
    /// On a lossy link its retransmission timeouts stretch the bulk phase: `lossRecovery`
    /// 176, fitted on the bulk phases of the tcp cells of matrices/hypotheses.json at 2-23 %
    /// loss (2026-12-02: 4 MB took 4 to 11 times the rate after loss at 16-23 %, about that
    /// at 4 %); it gives the two 32 MB cells of matrices/edge-large.json at 18 and 23 % the
    /// 60 s timeout they ran into.
    public func costHints(link: ResolvedLink) -> CostHints {
        CostHints(bulkRateShare: link.phyRateMbps == nil ? 1 : 0.7, lossRecovery: 176)
    }
}
