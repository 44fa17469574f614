import PeerBenchCore
import PeerBenchPlugin

/// Median and quartiles of a sample by linear interpolation between order statistics:
/// Hyndman and Fan's type 7, the default of numpy (`np.percentile`), R (`quantile`) and
/// Vega-Lite's box plots, so a figure and a table of the same values agree.
public struct Quartiles: Sendable, Equatable, Codable {
    public var n: Int
    public var q1: Double
    public var median: Double
    public var q3: Double

    public init(n: Int, q1: Double, median: Double, q3: Double) {
        self.n = n
        self.q1 = q1
        self.median = median
        self.q3 = q3
    }

    /// The quartiles of `values`; nil when there are none.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let xs = values.sorted()
        n = xs.count
        q1 = Self.quantile(sorted: xs, 0.25)
        median = Self.quantile(sorted: xs, 0.5)
        q3 = Self.quantile(sorted: xs, 0.75)
    }

    /// The `p` quantile of sorted values: with h = (n - 1) p, x[floor h] + (h - floor h)
    /// (x[floor h + 1] - x[floor h]) (0-based).
    public static func quantile(sorted xs: [Double], _ p: Double) -> Double {
        precondition(!xs.isEmpty && (0...1).contains(p))
        let h = Double(xs.count - 1) * p
        let lo = Int(h.rounded(.down))
        guard lo + 1 < xs.count else { return xs[lo] }
        return xs[lo] + (h - Double(lo)) * (xs[lo + 1] - xs[lo])
    }

    /// Whether `x` lies in [q1, q3], ends included.
    public func contains(_ x: Double) -> Bool { q1 <= x && x <= q3 }
}
