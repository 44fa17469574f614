import PeerBenchCore

/// One cell's metric values, `.nan` where absent: about 100 bytes per cell, so
/// 200 000 cells cost megabytes, not a JSON tree each.
struct MetricValues: Sendable {
    private var values = [Double](repeating: .nan, count: ComparisonMetric.allCases.count)

    /// One value per `ComparisonMetric.allCases`, NaN where absent (`ComparedRecord.values`).
    init(_ values: [Double]) {
        self.values = values
    }

    subscript(metric: ComparisonMetric) -> Double? {
        let v = values[metric.index]
        return v.isNaN ? nil : v
    }
}
