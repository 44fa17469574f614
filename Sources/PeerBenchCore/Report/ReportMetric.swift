/// The per-cell metrics the report draws, named as in the `compare --format json`
/// contract (docs/COMPARE.md), with how each is read from a record.
public enum ReportMetric: String, CaseIterable, Sendable {
    case throughput = "throughput_mbps"
    case rttP50 = "rtt_p50_ms"
    case rttP99 = "rtt_p99_ms"
    case jitter = "jitter_ms"
    case loss = "loss_ratio"
    case connect = "connect_ms"
    /// uwb: fraction of ranging updates that carried a distance (`extra.uwb.distance_availability`).
    case uwbAvailability = "uwb_availability"
    /// uwb: 95th percentile of |measured − true distance| (`extra.uwb.distance_error_m.p95`).
    case uwbErrorP95 = "uwb_error_m"

    /// Axis title with unit.
    public var title: String {
        switch self {
        case .throughput: "throughput (Mbit/s)"
        case .rttP50: "RTT p50 (ms)"
        case .rttP99: "RTT p99 (ms)"
        case .jitter: "jitter (ms)"
        case .loss: "loss ratio"
        case .connect: "connect time (ms)"
        case .uwbAvailability: "distance availability"
        case .uwbErrorP95: "p95 |distance error| (m)"
        }
    }

    /// The metric's value in one record, nil where it does not apply.
    func value(in r: Record) -> Double? {
        switch self {
        case .throughput: r.throughputMbps
        case .rttP50: r.rttMs?.p50
        case .rttP99: r.rttMs?.p99
        // ipdv_mean, which every transport has: rfc3550 for some and not others would compare unlike figures.
        case .jitter: r.jitterMs.ipdvMean
        case .loss: r.delivery?.lossRatio
        case .connect: r.connectMs
        case .uwbAvailability: r.extra["uwb"]?["distance_availability"]?.doubleValue
        case .uwbErrorP95: r.extra["uwb"]?["distance_error_m"]?["p95"]?.doubleValue
        }
    }
}

/// One cell's metric values, `.nan` where absent: about 100 bytes per cell, so
/// 200 000 cells cost megabytes, not a JSON tree each.
struct MetricValues: Sendable {
    private var values = [Double](repeating: .nan, count: ReportMetric.allCases.count)

    init(record: Record) {
        for (i, m) in ReportMetric.allCases.enumerated() { values[i] = m.value(in: record) ?? .nan }
    }

    subscript(metric: ReportMetric) -> Double? {
        let v = values[ReportMetric.allCases.firstIndex(of: metric)!]
        return v.isNaN ? nil : v
    }
}
