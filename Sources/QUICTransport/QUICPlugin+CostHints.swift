import PeerBenchPlugin

extension QUICPlugin {
    /// ngtcp2 over a radio link's availability windows reaches about half the link's
    /// usable rate: 0.33-0.65 (medians per payload) in the per-cell times of the
    /// field-study run of 2026-11-29 (docs/UNATTENDED.md, "Estimates"); it fills a fixed link.
    public func costHints(link: ResolvedLink) -> CostHints {
        CostHints(bulkRateShare: link.phyRateMbps == nil ? 1 : 0.5)
    }
}
