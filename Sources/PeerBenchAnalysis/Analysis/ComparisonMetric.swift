import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// A figure `compare` tests, with the direction that counts as better (docs/COMPARE.md).
/// Its name (`rawValue`) is the record key it reads where it reads a key of its own
/// (`throughput_mbps`, `connect_ms`, ...), spelled by the record (`Record.CodingKeys`).
public enum ComparisonMetric: Sendable, CaseIterable, Codable, RawRepresentable {
    case throughputMbps
    case rttP50
    case rttP99
    /// `jitter_ms.ipdv_mean`: every transport has it (rfc3550 only where one-way data exists,
    /// so using it for some transports and not others would compare unlike figures).
    case jitter
    case lossRatio
    case connectMs
    /// `extra.uwb.distance_availability`: fraction of ranging updates with a distance.
    case uwbAvailability
    /// `extra.uwb.distance_error_m.p95`: 95th percentile of |measured - true distance|, metres.
    case uwbErrorM
    /// `request_response_ms.p50`: a request-response workload's median transaction time.
    case transactionP50
    /// `frame_delay_ms.p99`: an isochronous workload's 99th-percentile frame delay against its schedule.
    case frameDelayP99
    /// `frames.late`: an isochronous workload's frames past their deadline (same count sent by every transport).
    case lateFrames
    /// `scenario.reconnect_ms`: from the link's return to the first byte delivered on a
    /// new connection (issue 27's `reconnect`); only cells that reconnected have it.
    case reconnectMs

    /// The metric's name: in `compare`'s output, thresholds files, `repetitionMetrics`.
    public var rawValue: String {
        switch self {
        case .throughputMbps: Key.throughputMbps.rawValue
        case .rttP50: "rtt_p50_ms"
        case .rttP99: "rtt_p99_ms"
        case .jitter: Key.jitterMs.rawValue
        case .lossRatio: Record.DeliveryStats.CodingKeys.lossRatio.rawValue
        case .connectMs: Key.connectMs.rawValue
        case .uwbAvailability: "uwb_availability"
        case .uwbErrorM: "uwb_error_m"
        case .transactionP50: "request_response_p50_ms"
        case .frameDelayP99: "frame_delay_p99_ms"
        case .lateFrames: "late_frames"
        case .reconnectMs: Record.Scenario.CodingKeys.reconnectMs.rawValue
        }
    }

    public init?(rawValue: String) {
        guard let metric = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = metric
    }

    var higherIsBetter: Bool { self == .throughputMbps || self == .uwbAvailability }

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
        case .transactionP50: "txn p50 ms"
        case .frameDelayP99: "frame delay p99 ms"
        case .lateFrames: "late frames"
        case .reconnectMs: "reconnect ms"
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
        case .transactionP50: "request-response time p50 (ms)"
        case .frameDelayP99: "frame delay p99 (ms)"
        case .lateFrames: "late frames"
        case .reconnectMs: "time back to work after the link returns (ms)"
        }
    }

    /// Position in a record's flat value row: the case's place in `allCases` (a switch,
    /// as a dictionary would hash the raw value's text on every one of 200 000 x 8 reads).
    var index: Int {
        switch self {
        case .throughputMbps: 0
        case .rttP50: 1
        case .rttP99: 2
        case .jitter: 3
        case .lossRatio: 4
        case .connectMs: 5
        case .uwbAvailability: 6
        case .uwbErrorM: 7
        case .transactionP50: 8
        case .frameDelayP99: 9
        case .lateFrames: 10
        case .reconnectMs: 11
        }
    }

    /// Where the metric is in a record: the one definition both readers use. The keys
    /// are the record's (`Record.CodingKeys` and its sections'); `uwb` and below are the
    /// uwb plugin's `extra`.
    public var path: [String] {
        switch self {
        case .throughputMbps: [Key.throughputMbps.rawValue]
        case .rttP50: [Key.rttMs.rawValue, RTTKey.p50.rawValue]
        case .rttP99: [Key.rttMs.rawValue, RTTKey.p99.rawValue]
        case .jitter: [Key.jitterMs.rawValue, Record.Jitter.CodingKeys.ipdvMean.rawValue]
        case .lossRatio: [Key.delivery.rawValue, Record.DeliveryStats.CodingKeys.lossRatio.rawValue]
        case .connectMs: [Key.connectMs.rawValue]
        case .uwbAvailability: [Key.extra.rawValue, "uwb", "distance_availability"]
        case .uwbErrorM: [Key.extra.rawValue, "uwb", "distance_error_m", "p95"]
        case .transactionP50: [Key.requestResponseMs.rawValue, RTTKey.p50.rawValue]
        case .frameDelayP99: [Key.frameDelayMs.rawValue, RTTKey.p99.rawValue]
        case .lateFrames: [Key.frames.rawValue, Record.Frames.CodingKeys.late.rawValue]
        case .reconnectMs: [Key.scenario.rawValue, Record.Scenario.CodingKeys.reconnectMs.rawValue]
        }
    }

    /// The metric's value in a journal line, nil where the record has none.
    func value(in line: RecordLine) throws(RecordLine.Problem) -> Double? {
        try line.number(index, of: Self.recordPaths)
    }

    /// Every metric's path, in `allCases` order: a record's row of values in one read.
    static let recordPaths = RecordLine.Paths(allCases.map(\.path))

    /// The metric's value in a record in memory (a run's own, as it goes), nil where it has none.
    func value(in r: Record) -> Double? {
        var v: JSONValue? = r.json
        for key in path { v = v?[key] }
        return v?.doubleValue
    }
}

/// The record's keys, as the metrics above read them.
private typealias Key = Record.CodingKeys
private typealias RTTKey = Record.RTTStats.CodingKeys
