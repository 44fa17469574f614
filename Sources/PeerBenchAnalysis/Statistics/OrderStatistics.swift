import Foundation

/// Medians and their distribution-free confidence interval (docs/COMPARE.md).
public enum OrderStatistics {
    /// The median of `values` (mean of the two middle values for an even count); nil when empty.
    public static func median(_ values: [Double]) -> Double? {
        medianOfSorted(values.sorted())
    }

    /// The median of an already sorted array.
    public static func medianOfSorted(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let mid = xs.count / 2
        return xs.count % 2 == 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2
    }

    /// The values at the 0-based sorted positions `ranks` (ascending), as `values.sorted()[r]`
    /// would give them, by selection: O(n) per rank, where a sort is O(n log n). The
    /// Hodges-Lehmann shift of two 260-value samples reads 4 of 67 600 differences.
    public static func select(_ values: inout [Double], ranks: [Int]) -> [Double] {
        values.withUnsafeMutableBufferPointer { select($0, ranks: ranks) }
    }

    /// As above, in a buffer (a scratch one, say, that no array owns).
    static func select(_ a: UnsafeMutableBufferPointer<Double>, ranks: [Int]) -> [Double] {
        var low = 0
        return ranks.map { r in
            // Everything left of `low` is already at most the previous rank's value.
            let v = quickselect(a, r, from: low)
            low = r
            return v
        }
    }

    /// Moves the `k`-th smallest of `a[from...]` to `a[k]` and returns it (Hoare partition,
    /// median-of-three pivot); `a[from..<k]` end at most it, `a[(k+1)...]` at least it.
    static func quickselect(_ a: UnsafeMutableBufferPointer<Double>, _ k: Int, from: Int) -> Double {
        precondition(k >= from && k < a.count, "rank \(k) of \(a.count) values")
        var lo = from, hi = a.count - 1
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if a[mid] < a[lo] { a.swapAt(mid, lo) }
            if a[hi] < a[lo] { a.swapAt(hi, lo) }
            if a[hi] < a[mid] { a.swapAt(hi, mid) }
            let pivot = a[mid]
            var i = lo, j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while pivot < a[j] { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return a[k]
    }

    /// The order-statistic confidence interval of the median: `[x(k), x(n+1-k)]` (1-based,
    /// sorted) with the largest `k` for which `P(B <= k-1) <= (1 - level) / 2`,
    /// `B ~ Binomial(n, 1/2)`. Its coverage is at least `level` whatever the distribution.
    /// Nil when no such `k` exists (fewer than 6 values at 95 %).
    public static func medianInterval(_ values: [Double], level: Double = 0.95) -> (low: Double, high: Double)? {
        let xs = values.sorted()
        guard let k = medianIntervalRank(n: xs.count, level: level) else { return nil }
        return (xs[k - 1], xs[xs.count - k])
    }

    /// The `k` of `medianInterval` for `n` values, nil when even `[min, max]` covers less than `level`.
    public static func medianIntervalRank(n: Int, level: Double = 0.95) -> Int? {
        guard n > 0 else { return nil }
        let tail = (1 - level) / 2
        // Cumulative binomial(n, 1/2) in log space: 2^-n overflows nothing this way.
        let logTotal = Double(n) * log(2.0)
        var logChoose = 0.0  // log C(n, j)
        var cdf = 0.0
        var k = 0
        for j in 0..<n {
            if j > 0 { logChoose += log(Double(n - j + 1)) - log(Double(j)) }
            cdf += exp(logChoose - logTotal)
            // cdf = P(B <= j); rank j + 1 is admissible when it stays within the tail.
            guard cdf <= tail * (1 + 1e-12) else { break }
            k = j + 1
        }
        return k >= 1 && k <= (n + 1) / 2 ? k : nil
    }
}
