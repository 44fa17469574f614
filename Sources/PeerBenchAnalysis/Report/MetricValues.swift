import PeerBenchCore

/// One cell's metric values, `.nan` where absent: about 100 bytes per cell, so
/// 200 000 cells cost megabytes, not a JSON tree each.
struct MetricValues: Sendable {
    private var values = [Double](repeating: .nan, count: ComparisonMetric.allCases.count)

    init(line: RecordLine) throws(RecordLine.Problem) {
        for (i, m) in ComparisonMetric.allCases.enumerated() { values[i] = try m.value(in: line) ?? .nan }
    }

    subscript(metric: ComparisonMetric) -> Double? {
        let v = values[ComparisonMetric.allCases.firstIndex(of: metric)!]
        return v.isNaN ? nil : v
    }
}
