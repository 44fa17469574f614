import Foundation
import Synchronization

/// Two-sided Mann-Whitney U test of two independent samples (docs/COMPARE.md).
///
/// Exact when the pooled sample has no ties and `n * m <= exactLimit`: the null
/// distribution of U is counted (coefficients of the Gaussian binomial [n+m choose n]).
/// Otherwise the normal approximation with tie correction and continuity correction,
/// as scipy.stats.mannwhitneyu(method="asymptotic") computes it.
public struct MannWhitneyU: Sendable, Equatable {
    public enum Method: String, Sendable { case exact, asymptotic }

    /// Largest `n * m` tested exactly.
    static let exactLimit = 10_000

    /// U of the first sample: pairs where it is larger, ties counting one half.
    public var u1: Double
    /// Two-sided p-value.
    public var pValue: Double
    public var method: Method

    /// Nil when either sample is empty.
    public init?(_ x: [Double], _ y: [Double]) { self.init(sorted: x.sorted(), y.sorted()) }

    /// The same test of two samples already in ascending order (compare sorts each
    /// sample once for all its pairs); nil when either is empty.
    init?(sorted x: [Double], _ y: [Double]) {
        let n = x.count, m = y.count
        guard n > 0, m > 0 else { return nil }
        let ranks = MannWhitneyU.rankSum(sorted: x, y)
        u1 = ranks.r1 - Double(n * (n + 1)) / 2
        let u2 = Double(n * m) - u1
        if ranks.tieTerm == 0, n * m <= MannWhitneyU.exactLimit {
            method = .exact
            let low = Int(min(u1, u2).rounded())
            pValue = min(1, 2 * UDistribution.shared.lowerTail(n: n, m: m, atMost: low))
        } else {
            method = .asymptotic
            let nm = Double(n * m), total = Double(n + m)
            let mu = nm / 2
            let variance = nm / 12 * ((total + 1) - ranks.tieTerm / (total * (total - 1)))
            if variance <= 0 {
                pValue = 1  // every value equal: no evidence of any difference
            } else {
                let z = (max(u1, u2) - mu - 0.5) / variance.squareRoot()
                pValue = min(1, max(0, 2 * Normal.survival(z)))
            }
        }
    }

    /// The sum of x's mid-ranks (1-based) in the pooled sample and the tie term
    /// sum(t^3 - t) over groups of ties, by merging the two ascending samples: each
    /// group of equal values takes the ranks after those already placed. Mid-ranks are
    /// multiples of 1/2, so the sum is exact in any order.
    static func rankSum(sorted x: [Double], _ y: [Double]) -> (r1: Double, tieTerm: Double) {
        var i = 0, j = 0, placed = 0
        var r1 = 0.0, tieTerm = 0.0
        while i < x.count || j < y.count {
            let v = j == y.count || (i < x.count && x[i] <= y[j]) ? x[i] : y[j]
            var inX = 0, inY = 0
            while i < x.count, x[i] == v {
                i += 1
                inX += 1
            }
            while j < y.count, y[j] == v {
                j += 1
                inY += 1
            }
            let t = inX + inY
            // The group holds ranks placed+1 ... placed+t; their middle:
            r1 += Double(inX) * (Double(2 * placed + t + 1) / 2)
            tieTerm += Double(t * t * t - t)
            placed += t
        }
        return (r1, tieTerm)
    }
}

/// The standard normal distribution's tail and quantile.
enum Normal {
    /// P(Z > z).
    static func survival(_ z: Double) -> Double { 0.5 * erfc(z / 2.0.squareRoot()) }

    /// The 0.975 quantile, for 95 % intervals.
    static let z975 = 1.959963984540054
}

/// Null distribution of the Mann-Whitney U statistic without ties, cached per (n, m):
/// the comparison of many scenarios asks for the same few sample sizes again and again.
final class UDistribution: Sendable {
    static let shared = UDistribution()
    private let cumulative = Mutex<[Int: [Double]]>([:])

    /// P(U <= u) for samples of sizes n and m.
    func lowerTail(n: Int, m: Int, atMost u: Int) -> Double {
        guard u >= 0 else { return 0 }
        let cdf = table(n: n, m: m)
        return u >= cdf.count ? 1 : cdf[u]
    }

    /// Cumulative probabilities P(U <= u), u = 0 ... n*m.
    func table(n: Int, m: Int) -> [Double] {
        let (a, b) = (min(n, m), max(n, m))  // symmetric in n and m
        let key = a << 32 | b
        if let t = cumulative.withLock({ $0[key] }) { return t }
        let counts = UDistribution.counts(n: a, m: b)
        let total = counts.reduce(0, +)
        var running = 0.0
        let cdf = counts.map {
            running += $0
            return min(1, running / total)
        }
        cumulative.withLock { $0[key] = cdf }
        return cdf
    }

    /// Number of arrangements giving U = 0 ... n*m: the coefficients of the Gaussian
    /// binomial, built as prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i). The low coefficients,
    /// which small p-values come from, only ever add small integers, so they are exact.
    static func counts(n: Int, m: Int) -> [Double] {
        var c = [Double](repeating: 0, count: n * m + n + 1)
        c[0] = 1
        var degree = 0
        for i in stride(from: 1, through: n, by: 1) {
            let step = m + i
            let raised = degree + step
            for k in stride(from: raised, through: step, by: -1) { c[k] -= c[k - step] }
            for k in stride(from: i, through: raised, by: 1) { c[k] += c[k - i] }
            degree += m
            for k in stride(from: degree + 1, through: raised, by: 1) { c[k] = 0 }
        }
        return Array(c[0...(n * m)])
    }
}
