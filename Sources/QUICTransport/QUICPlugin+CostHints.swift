import PeerBenchPlugin

extension QUICPlugin {
    /// ngtcp2 over a radio link's availability windows reaches about half the link's
    /// usable rate: 0.33-0.65 (medians per payload) in the per-cell times of the
    /// field-study run of 2026-11-29 (docs/UNATTENDED.md, "Estimates"); it fills a fixed link.
    /// Its loss recovery costs less than tcp's (`lossRecovery` 69, fitted the same way on
    /// the quic cells of matrices/hypotheses.json, 2026-12-02: 2 to 5 times the rate after
    /// loss at 17-23 %; the 32 MB cells of matrices/edge-large.json then get 60 s, the
    /// timeout, against 55 and 56 s recorded).
    public func costHints(link: ResolvedLink) -> CostHints {
        CostHints(bulkRateShare: link.phyRateMbps == nil ? 1 : 0.5, lossRecovery: 69)
    }
}
