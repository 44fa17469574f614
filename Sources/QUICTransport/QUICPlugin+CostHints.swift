import PeerBenchPlugin

extension QUICPlugin {
    /// ngtcp2 over a radio link's availability windows reaches 0.6 of the link's usable
    /// rate once its window is open: 0.63-0.66 (medians, transfers of 40-92 MB) in
    /// matrices/field-study-2025-app-loop.json, shard 1/4, 2026-12-02, the top of the
    /// 0.33-0.65 per payload of the field-study run of 2026-11-29, whose smaller transfers
    /// were still opening their window; 0.36-0.92, median 0.59, over 27.6 MB on lossless
    /// free-field links of 62-234 Mbit/s (`scripts/bulk-share.py`, 2026-12-03: it falls
    /// as the rate rises, where its packets cost the host more than the air does).
    /// ngtcp2's initial window is 14 720 bytes (ngtcp2_cc_compute_initcwnd at a
    /// 1 200-1 452-byte datagram), doubling each round trip. It fills a fixed link.
    /// Its loss recovery costs less than tcp's (`lossRecovery` 69, fitted the same way on
    /// the quic cells of matrices/hypotheses.json, 2026-12-02: 2 to 5 times the rate after
    /// loss at 17-23 %; the 32 MB cells of matrices/edge-large.json then get 60 s, the
    /// timeout, against 55 and 56 s recorded).
    public func costHints(link: ResolvedLink) -> CostHints {
        CostHints(bulkRateShare: link.phyRateMbps == nil ? 1 : 0.6, lossRecovery: 69, initialWindowBytes: 14_720)
    }
}
