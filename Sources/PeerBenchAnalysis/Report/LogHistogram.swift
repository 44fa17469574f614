import Foundation

/// A fixed-size histogram of durations on log-spaced buckets (each 2 % wider than the
/// last, from 1 µs), so the RTT distribution of any number of probes costs the same
/// few kilobytes and its quantiles are within 1 % of the exact ones.
struct LogHistogram: Sendable {
    static let lowestNanos = 1_000.0
    static let ratio = 1.02
    static let bucketCount = 1_200  // 1 µs · 1.02^1200 ≈ 20 000 s

    private(set) var counts = [UInt32](repeating: 0, count: bucketCount)
    private(set) var total = 0

    static func bucket(_ nanos: UInt64) -> Int {
        let x = Double(max(nanos, 1))
        guard x > lowestNanos else { return 0 }
        return min(bucketCount - 1, Int(log(x / lowestNanos) / log(ratio)))
    }

    /// The geometric middle of a bucket, nanoseconds.
    static func value(ofBucket i: Int) -> Double {
        lowestNanos * pow(ratio, Double(i) + 0.5)
    }

    mutating func add(_ nanos: UInt64) {
        counts[LogHistogram.bucket(nanos)] &+= 1
        total += 1
    }

    /// `(value in ms, cumulative fraction)` at fractions 1/points ... 1: a CDF of a
    /// bounded number of points whatever the sample count.
    func cdf(points: Int = 100) -> [(ms: Double, p: Double)] {
        guard total > 0 else { return [] }
        var out: [(Double, Double)] = []
        var cumulative = 0
        var k = 1
        for (i, c) in counts.enumerated() where c > 0 {
            cumulative += Int(c)
            // Every fraction step this bucket crosses is drawn at the bucket's value.
            var crossed = false
            while k <= points, Double(cumulative) / Double(total) >= Double(k) / Double(points) - 1e-12 {
                k += 1
                crossed = true
            }
            if crossed { out.append((LogHistogram.value(ofBucket: i) / 1e6, Double(k - 1) / Double(points))) }
        }
        return out
    }
}
