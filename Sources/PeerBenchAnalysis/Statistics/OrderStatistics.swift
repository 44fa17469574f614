import Foundation

/// Medians and their distribution-free confidence interval (docs/COMPARE.md).
public enum OrderStatistics {
    /// The median of `values` (mean of the two middle values for an even count); nil when empty.
    public static func median(_ values: [Double]) -> Double? {
        medianOfSorted(values.sorted())
    }

    /// The median of an already sorted array.
    static func medianOfSorted(_ xs: [Double]) -> Double? {
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

    /// As above, in a buffer (a scratch one, say, that no array owns). The middle rank is
    /// selected first, then the lower ranks among the values left of it and the upper
    /// ones among those right of it: the Hodges-Lehmann shift's four ranks of 100
    /// differences visit about 400 values this way, 550 one rank after another.
    static func select(_ a: UnsafeMutableBufferPointer<Double>, ranks: [Int]) -> [Double] {
        var unique: [Int] = []
        for r in ranks where unique.last != r { unique.append(r) }
        var found = [Double](repeating: 0, count: unique.count)
        select(a, unique[...], lo: 0, hi: a.count, into: &found)
        var k = 0
        return ranks.map { r in
            while unique[k] != r { k += 1 }
            return found[k]
        }
    }

    /// Selects the distinct ascending `ranks`, all in `lo..<hi`, whose values `a[lo..<hi]`
    /// holds, into `found` (indexed like `ranks`).
    private static func select(
        _ a: UnsafeMutableBufferPointer<Double>, _ ranks: ArraySlice<Int>, lo: Int, hi: Int,
        into found: inout [Double]
    ) {
        guard !ranks.isEmpty else { return }
        let middle = ranks.startIndex + ranks.count / 2
        let r = ranks[middle]
        found[middle] = quickselect(a, r, from: lo, to: hi)
        select(a, ranks[..<middle], lo: lo, hi: r, into: &found)
        select(a, ranks[(middle + 1)...], lo: r + 1, hi: hi, into: &found)
    }

    /// Moves the `k`-th smallest of `a[from..<to]` to `a[k]` and returns it (Hoare
    /// partition, median-of-three pivot; the smallest by one scan); `a[from..<k]` end at
    /// most it, `a[(k+1)..<to]` at least it.
    static func quickselect(_ a: UnsafeMutableBufferPointer<Double>, _ k: Int, from: Int, to: Int) -> Double {
        precondition(k >= from && k < to && to <= a.count, "rank \(k) of \(from)..<\(to) in \(a.count) values")
        if k == from {
            var least = from
            for i in (from + 1)..<to where a[i] < a[least] { least = i }
            a.swapAt(from, least)
            return a[from]
        }
        var lo = from, hi = to - 1
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
        medianInterval(sorted: values.sorted(), level: level)
    }

    /// `medianInterval` of values already in ascending order.
    public static func medianInterval(sorted xs: [Double], level: Double = 0.95) -> (low: Double, high: Double)? {
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
