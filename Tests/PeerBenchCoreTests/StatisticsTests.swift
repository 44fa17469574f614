import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import UDPTransport

@testable import PeerBenchAnalysis

@Suite struct StatisticsTests {
    /// Hand-computed: transits 10, 12, 11, 15 ms -> |D| = 2, 1, 4 ms;
    /// J1 = 2/16 = 0.125; J2 = 0.125 + (1 - 0.125)/16 = 0.1796875; J3 = 0.1796875 + (4 - 0.1796875)/16 = 0.41845703125.
    @Test func rfc3550OnAHandComputedSequence() {
        var j = RFC3550Jitter()
        let sent: [UInt64] = [0, 20, 40, 60].map { $0 * 1_000_000 }
        let transit: [UInt64] = [10, 12, 11, 15].map { $0 * 1_000_000 }
        for (s, t) in zip(sent, transit) { j.add(sentNanos: s + 5_000_000_000, arrivedNanos: s + t) }
        #expect(abs(j.jitterMs - 0.41845703125) < 1e-9)
        #expect(j.samples == 4)
    }

    @Test func rttSummaryOfOneToHundredMilliseconds() throws {
        let samples = (1...100).map { UInt64($0) * 1_000_000 }
        let s = try #require(RTTSummary(nanoseconds: samples))
        #expect(s.count == 100)
        #expect(s.min == 1 && s.max == 100)
        #expect(abs(s.mean - 50.5) < 1e-9)
        #expect(abs(s.p50 - 50) <= 0.05)
        #expect(abs(s.p90 - 90) <= 0.1)
        #expect(abs(s.p99 - 99) <= 0.1)
        #expect(abs(s.stddev - 28.866070047722118) < 1e-9)
        #expect(s.ipdvMean == 1)
    }

    @Test func ipdvIsMeanAbsoluteDifference() {
        #expect(RTTSummary.ipdv([10, 14, 12, 12]) == 2)
        #expect(RTTSummary.ipdv([5]) == nil)
        #expect(RTTSummary(nanoseconds: []) == nil)
    }

    @Test func lossRatioIgnoresDuplicates() {
        #expect(Delivery(sentMessages: 200, receivedMessages: 150, sentBytes: 0, receivedBytes: 0, duplicated: 3).lossRatio == 0.25)
        #expect(Delivery(sentMessages: 0, receivedMessages: 0, sentBytes: 0, receivedBytes: 0).lossRatio == 0)
    }

    /// Selection gives the sorted array's values at any ascending ranks, ties and all.
    @Test func selectionIsTheSortedValueAtEachRank() {
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<300 {
            let n = Int.random(in: 1...400, using: &rng)
            // Few distinct values in some trials: ties are where a partition goes wrong.
            let values = (0..<n).map { _ in trial % 3 == 0 ? Double(Int.random(in: 0...4, using: &rng)) : Double.random(in: -5...5, using: &rng) }
            let ranks = (0..<Int.random(in: 1...5, using: &rng)).map { _ in Int.random(in: 0..<n, using: &rng) }.sorted()
            var scratch = values
            #expect(OrderStatistics.select(&scratch, ranks: ranks) == ranks.map { values.sorted()[$0] }, "n \(n) ranks \(ranks)")
        }
    }

    /// The pairwise differences' order statistics are the sorted differences' values, for
    /// samples small enough to select directly and large enough to narrow windows, with
    /// ties (integer data) and without, at the extremes and in between.
    @Test func pairwiseDifferencesAreTheSortedDifferencesAtEachRank() {
        var rng = SeededRandom(seed: 22)
        for trial in 0..<120 {
            let n = Int.random(in: 1...90, using: &rng), m = Int.random(in: 1...90, using: &rng)
            let draw = { (rng: inout SeededRandom) -> Double in
                trial % 3 == 0 ? Double(Int.random(in: 0...6, using: &rng)) : Double.random(in: -50...50, using: &rng)
            }
            let x = (0..<n).map { _ in draw(&rng) }, y = (0..<m).map { _ in draw(&rng) + (trial % 2 == 0 ? 3 : 0) }
            let sorted = x.flatMap { a in y.map { b in a - b } }.sorted()
            let ranks = ([0, sorted.count - 1] + (0..<4).map { _ in Int.random(in: 0..<sorted.count, using: &rng) }).sorted()
            let d = PairwiseDifferences(x, y)
            #expect(d.values(ranks: ranks) == ranks.map { sorted[$0] }, "n \(n) m \(m) ranks \(ranks)")
            #expect(ranks.map(d.value(rank:)) == ranks.map { sorted[$0] }, "n \(n) m \(m) ranks \(ranks), one at a time")
        }
    }

    /// Compare's samples are small (ten repetitions: 100 differences), where the
    /// differences are sorted by merging runs: every rank of every size up to the
    /// direct limit, odd and even, with heavy ties and with -0.0 beside 0.0, is the
    /// brute-force sorted differences' value, and the
    /// Hodges-Lehmann shift is the brute-force median of the differences.
    @Test func smallSamplesGiveTheBruteForceDifferencesAndShift() {
        var rng = SeededRandom(seed: 2222)
        for trial in 0..<400 {
            let n = Int.random(in: 1...24, using: &rng), m = Int.random(in: 1...(512 / n), using: &rng)
            let draw = { (rng: inout SeededRandom) -> Double in
                switch trial % 4 {
                case 0: Double(Int.random(in: 0...3, using: &rng))
                case 1: [0.0, -0.0, 1.5, -1.5].randomElement(using: &rng)!
                default: Double.random(in: -1e3...1e3, using: &rng)
                }
            }
            let x = (0..<n).map { _ in draw(&rng) }, y = (0..<m).map { _ in draw(&rng) }
            let sorted = x.flatMap { a in y.map { b in a - b } }.sorted()
            let d = PairwiseDifferences(x, y)
            #expect(d.count <= PairwiseDifferences.directLimit)
            let all = d.values(ranks: Array(sorted.indices))
            // Equal as numbers (-0.0 == 0.0 may come in either order, as from any sort).
            #expect(all == sorted, "n \(n) m \(m)")
            let mid = sorted.count / 2
            let median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
            let hl = EffectSize.hodgesLehmann(x, y)!
            #expect(hl.shift == median, "n \(n) m \(m)")
            if let k = EffectSize.shiftIntervalRank(n: n, m: m) {
                #expect(hl.low == sorted[k - 1] && hl.high == sorted[sorted.count - k], "n \(n) m \(m) k \(k)")
            } else {
                #expect(hl.low == nil && hl.high == nil)
            }
        }
        // Differences past a double's range are infinite: sorted another way, same values.
        let huge = [1.7e308, 1, -1.7e308, 3], opposite = [-1.7e308, 2, 1.7e308]
        let hugeSorted = huge.flatMap { u in opposite.map { u - $0 } }.sorted()
        #expect(hugeSorted.first == -.infinity && hugeSorted.last == .infinity)
        #expect(PairwiseDifferences(huge, opposite).values(ranks: Array(hugeSorted.indices)) == hugeSorted)
        // One value each side, and a sample of ten against ten at once: the usual case.
        #expect(PairwiseDifferences([2], [5]).values(ranks: [0]) == [-3])
        let a = [3.0, 1, 4, 1, 5, 9, 2, 6, 5, 3], b = [2.0, 7, 1, 8, 2, 8, 1, 8, 2, 8]
        #expect(PairwiseDifferences(a, b).values(ranks: Array(0..<100)) == a.flatMap { u in b.map { u - $0 } }.sorted())
    }
}
