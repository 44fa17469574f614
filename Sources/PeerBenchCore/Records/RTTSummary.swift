import Histogram

/// Round-trip-time statistics of one cell, milliseconds.
///
/// Percentiles come from an HdrHistogram (3 significant digits, nanosecond
/// resolution); min, max, mean and standard deviation are exact.
public struct RTTSummary: Sendable, Equatable {
    public var count: Int
    public var min: Double
    public var mean: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double
    /// Population standard deviation.
    public var stddev: Double
    /// Mean |RTT_i - RTT_{i-1}| over consecutive samples (IPDV of round trips).
    public var ipdvMean: Double?

    /// nil when there are no samples.
    public init?(nanoseconds samples: [UInt64]) {
        guard !samples.isEmpty else { return nil }
        var h = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)
        var sum = 0.0
        for s in samples {
            _ = h.record(Swift.min(s, 3_600_000_000_000))
            sum += Double(s)
        }
        let n = Double(samples.count)
        let meanNs = sum / n
        let variance = samples.reduce(0.0) { $0 + (Double($1) - meanNs) * (Double($1) - meanNs) } / n
        count = samples.count
        min = Double(samples.min()!) / 1e6
        max = Double(samples.max()!) / 1e6
        mean = meanNs / 1e6
        stddev = variance.squareRoot() / 1e6
        p50 = Double(h.valueAtPercentile(50)) / 1e6
        p90 = Double(h.valueAtPercentile(90)) / 1e6
        p99 = Double(h.valueAtPercentile(99)) / 1e6
        ipdvMean = RTTSummary.ipdv(samples).map { $0 / 1e6 }
    }

    /// Mean absolute difference of consecutive samples (nanoseconds); nil below two samples.
    public static func ipdv(_ samples: [UInt64]) -> Double? {
        guard samples.count >= 2 else { return nil }
        var total = 0.0
        for i in 1..<samples.count { total += abs(Double(samples[i]) - Double(samples[i - 1])) }
        return total / Double(samples.count - 1)
    }
}
