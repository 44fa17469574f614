/// Effect sizes of two samples: Cliff's delta and the Hodges-Lehmann shift (docs/COMPARE.md).
public enum EffectSize {
    /// Cliff's delta of x against y: P(X > Y) - P(X < Y) over all pairs, in [-1, 1]; nil when either is empty.
    public static func cliffsDelta(_ x: [Double], _ y: [Double]) -> Double? {
        cliffsDelta(sorted: x.sorted(), y.sorted())
    }

    /// Cliff's delta of two samples in ascending order: one merge, O(n + m).
    static func cliffsDelta(sorted x: [Double], _ y: [Double]) -> Double? {
        guard !x.isEmpty, !y.isEmpty else { return nil }
        var greater = 0, less = 0
        // y[..<below] < v and y[..<atMost] <= v, for each v of x in turn (both only grow).
        var below = 0, atMost = 0
        for v in x {
            while below < y.count, y[below] < v { below += 1 }
            while atMost < y.count, y[atMost] <= v { atMost += 1 }
            greater += below
            less += y.count - atMost
        }
        return Double(greater - less) / Double(x.count * y.count)
    }

    /// The Hodges-Lehmann shift of x against y (median of every x_i - y_j) and its
    /// distribution-free 95 % interval `[D(k), D(nm+1-k)]` of the sorted differences,
    /// `k` the largest rank with P(U <= k-1) <= 0.025 under the no-ties null
    /// distribution of U (exact up to `MannWhitneyU.exactLimit`, else the normal
    /// approximation `k = floor(nm/2 + 1/2 - 1.96 sqrt(nm(n+m+1)/12))`).
    /// The interval is nil when the samples are too small to have one.
    public static func hodgesLehmann(_ x: [Double], _ y: [Double]) -> (shift: Double, low: Double?, high: Double?)? {
        hodgesLehmann(sorted: x.sorted(), y.sorted())
    }

    /// `hodgesLehmann` of two samples in ascending order (compare sorts each once).
    static func hodgesLehmann(sorted x: [Double], _ y: [Double]) -> (shift: Double, low: Double?, high: Double?)? {
        guard !x.isEmpty, !y.isEmpty else { return nil }
        // Only four order statistics of the differences are read, found without forming them.
        let d = PairwiseDifferences(sorted: x, y)
        let n = d.count, mid = n / 2
        let k = shiftIntervalRank(n: x.count, m: y.count)
        // The interval's ends (the middle again when there is no interval) and the middle
        // two (the same one twice for an odd count).
        let lower = n % 2 == 0 ? mid - 1 : mid
        let (low, a, b, high) = d.values(k.map { $0 - 1 } ?? lower, lower, mid, k.map { n - $0 } ?? mid)
        let shift = lower == mid ? b : (a + b) / 2
        guard k != nil else { return (shift, nil, nil) }
        return (shift, low, high)
    }

    /// The `k` of the Hodges-Lehmann interval, nil when there is none.
    public static func shiftIntervalRank(n: Int, m: Int) -> Int? {
        let nm = n * m
        var k = 0
        if nm <= MannWhitneyU.exactLimit {
            let cdf = UDistribution.shared.table(n: n, m: m)
            // Largest k with P(U <= k-1) <= 0.025.
            while k < cdf.count, cdf[k] <= 0.025 * (1 + 1e-12) { k += 1 }
        } else {
            let sd = (Double(nm) * Double(n + m + 1) / 12).squareRoot()
            k = Int((Double(nm) / 2 + 0.5 - Normal.z975 * sd).rounded(.down))
        }
        return k >= 1 && k <= (nm + 1) / 2 ? k : nil
    }
}
