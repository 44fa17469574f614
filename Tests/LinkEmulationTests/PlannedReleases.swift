import PeerBenchTestbed

@testable import LinkEmulation

/// When the emulator planned to release what crossed a link: its delivery series (bytes
/// by planned release time, in 10 ms bins from the emulator's start, which is also the
/// channel schedule's origin). What a test reads here is what the emulator decided,
/// free of the scheduling delays a loaded host adds to the packets' wall-clock times
/// (issue 42, item 5).
struct PlannedReleases {
    let series: LinkDeliverySeries
    static let bin = LinkDeliverySeries.binNanos

    init(_ counters: LinkCounters?) throws {
        guard let series = counters?.delivery else { throw Missing() }
        self.series = series
    }

    struct Missing: Error {}

    /// Bins in the series (the longer direction's).
    var bins: Int { max(series.up.count, series.down.count) }

    /// Bytes planned for release in bin `i`, both directions.
    func bytes(_ i: Int) -> Int {
        (i < series.up.count ? series.up[i] : 0) + (i < series.down.count ? series.down[i] : 0)
    }

    /// Whether anything was released before bin `i` and anything from bin `j` on: the
    /// stretch between lies while traffic ran.
    func whileRunning(_ i: Int, _ j: Int) -> Bool {
        (0..<min(i, bins)).contains { bytes($0) > 0 } && (j..<bins).contains { bytes($0) > 0 }
    }

    /// The off-channel slots of `schedule` while traffic ran, each as the bins whose
    /// releases it rules out (from `delayNanos` + 1 ms after the slot begins: what left
    /// just before it is still on its way; to `delayNanos` after it ends) and the bin in
    /// which what waited for the slot's end is released.
    func offChannelSlots(of schedule: ChannelSchedule, delayNanos: UInt64) -> [(inside: Range<Int>, end: Int)] {
        var slots: [(inside: Range<Int>, end: Int)] = []
        let slot = schedule.slotNanos, bin = Self.bin
        for k in 0..<(UInt64(bins) * bin / slot + 1) where !schedule.onChannel[Int(k % UInt64(schedule.onChannel.count))] {
            let from = k * slot + delayNanos + 1_000_000, to = (k + 1) * slot + delayNanos
            let inside = Int((from + bin - 1) / bin)..<Int(to / bin), end = Int(to / bin)
            if end < bins && whileRunning(inside.lowerBound, end) { slots.append((inside, end)) }
        }
        return slots
    }

    /// Bins, while traffic ran, that hold no availability window's start plus the delay
    /// (up to `spreadNanos` after it: air time, an aggregate's exchange): a frame that
    /// waits for a window is never released in them.
    func binsWithoutAWindowStart(windowNanos: UInt64, delayNanos: UInt64, spreadNanos: UInt64) -> [Int] {
        let bin = Self.bin
        return (0..<bins).filter { i in
            let lo = UInt64(i) * bin, hi = lo + bin
            // The first release instant at or after the bin's start, and the last before it.
            let k = lo > delayNanos ? (lo - delayNanos + windowNanos - 1) / windowNanos : 0
            let next = k * windowNanos + delayNanos
            let previousEnd = k > 0 ? (k - 1) * windowNanos + delayNanos + spreadNanos : 0
            return next >= hi && previousEnd < lo && whileRunning(i, i + 1)
        }
    }
}
