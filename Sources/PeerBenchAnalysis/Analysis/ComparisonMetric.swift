import PeerBenchCore

/// A figure `compare` tests, with the direction that counts as better (docs/COMPARE.md).
public enum ComparisonMetric: String, Sendable, CaseIterable, Codable {
    case throughputMbps = "throughput_mbps"
    case rttP50 = "rtt_p50_ms"
    case rttP99 = "rtt_p99_ms"
    /// `jitter_ms.ipdv_mean`: every transport has it (rfc3550 only where one-way data exists,
    /// so using it for some transports and not others would compare unlike figures).
    case jitter = "jitter_ms"
    case lossRatio = "loss_ratio"
    case connectMs = "connect_ms"
    /// `extra.uwb.distance_availability`: fraction of ranging updates with a distance.
    case uwbAvailability = "uwb_availability"
    /// `extra.uwb.distance_error_m.p95`: 95th percentile of |measured - true distance|, metres.
    case uwbErrorM = "uwb_error_m"

    public var higherIsBetter: Bool { self == .throughputMbps || self == .uwbAvailability }

    /// Short column heading for text and markdown tables.
    public var heading: String {
        switch self {
        case .throughputMbps: "Mbit/s"
        case .rttP50: "RTT p50 ms"
        case .rttP99: "RTT p99 ms"
        case .jitter: "jitter ms"
        case .lossRatio: "loss"
        case .connectMs: "connect ms"
        case .uwbAvailability: "uwb avail"
        case .uwbErrorM: "uwb err m"
        }
    }

    /// Axis title with unit, for the report's figures.
    public var title: String {
        switch self {
        case .throughputMbps: "throughput (Mbit/s)"
        case .rttP50: "RTT p50 (ms)"
        case .rttP99: "RTT p99 (ms)"
        case .jitter: "jitter (ms)"
        case .lossRatio: "loss ratio"
        case .connectMs: "connect time (ms)"
        case .uwbAvailability: "distance availability"
        case .uwbErrorM: "p95 |distance error| (m)"
        }
    }

    /// Position in a record's flat value row.
    var index: Int { ComparisonMetric.allCases.firstIndex(of: self)! }

    /// The metric's value in a record, nil where the record has none.
    func value(in r: Record) -> Double? {
        switch self {
        case .throughputMbps: r.throughputMbps
        case .rttP50: r.rttMs?.p50
        case .rttP99: r.rttMs?.p99
        case .jitter: r.jitterMs.ipdvMean
        case .lossRatio: r.delivery?.lossRatio
        case .connectMs: r.connectMs
        case .uwbAvailability: r.extra["uwb"]?["distance_availability"]?.doubleValue
        case .uwbErrorM: r.extra["uwb"]?["distance_error_m"]?["p95"]?.doubleValue
        }
    }
}
