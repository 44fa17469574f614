import PeerBenchPlugin

extension CostHints {
    /// A bulk phase over Linux's TCP (CUBIC), the tcp and tls plugins' alike (TLS adds
    /// little over the same TCP):
    /// - it reaches 0.85 of a radio link's usable rate once its window is open: 0.86-0.91
    ///   (medians, transfers of 40-92 MB) in matrices/field-study-2025-app-loop.json,
    ///   shard 1/4 (2026-12-02), and 0.79-0.93, median 0.84, over 27.6 MB on lossless
    ///   free-field links of 62-234 Mbit/s (`scripts/bulk-share.py`, 2026-12-03); it
    ///   fills a fixed link;
    /// - its window starts at 10 segments (Linux's initial window, 10 x 1 444 bytes on
    ///   AWDL's 1 484-byte MTU) and doubles each round trip: the smaller transfers of the
    ///   field-study run of 2026-11-29 reached lower shares (0.54-0.86, medians per
    ///   payload), to which a single share of 0.7 had been fitted;
    /// - on a lossy link its retransmission timeouts stretch the bulk phase:
    ///   `lossRecovery` 176, fitted on the bulk phases of the tcp cells of
    ///   matrices/hypotheses.json at 2-23 % loss (2026-12-02: 4 MB took 4 to 11 times the
    ///   rate after loss at 16-23 %, about that at 4 %); it gives the two 32 MB cells of
    ///   matrices/edge-large.json at 18 and 23 % the 60 s timeout they ran into.
    public static func kernelTCP(link: ResolvedLink) -> CostHints {
        CostHints(bulkRateShare: link.phyRateMbps == nil ? 1 : 0.85, lossRecovery: 176, initialWindowBytes: 10 * 1_444)
    }
}
