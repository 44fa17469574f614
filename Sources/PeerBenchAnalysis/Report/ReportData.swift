import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// Everything the report draws, condensed from one or more run folders while they are
/// read line by line (ReportInput): per cell a handful of numbers, per scenario x
/// transport a bounded RTT histogram, a bounded list of bulk time series, the failed
/// cells, the manifests and the warnings. Never the records themselves.
struct ReportData: Sendable {
    /// One environment x distance x payload, as `compare` groups cells.
    struct Scenario: Sendable, Hashable {
        var environment: String
        var distanceLabel: String
        /// `"COUNTxSIZE"` or `"-"`.
        var payload: String

        var title: String {
            "\(environment) · \(distanceLabel == "max" ? "max" : distanceLabel + " m") · \(payload == "-" ? "no payload" : payload + " B")"
        }
    }

    /// The last record of one run x cell x repetition (earlier attempts are history).
    struct Cell: Sendable {
        var scenario: Int
        var transport: Int
        var usable: Bool
        var values: MetricValues
        /// Index into `failures` when this record did not end ok or partial.
        var failure: Int?
    }

    /// A cell that did not end ok or partial, as the page lists it.
    struct Failure: Sendable {
        var run: String
        var scenario: String
        var transport: String
        var repetition: Int
        var status: String
        var error: String
    }

    /// One run folder: where it is, its manifest, what was found in it.
    struct Run: Sendable {
        var directory: String
        var manifest: JSONValue?
        var records = 0
        /// Lines of samples.jsonl joined to a record; nil when the folder has no samples.jsonl.
        var samplesJoined: Int?
    }

    /// The bulk phase of one cell, per interval, for the time-series figure.
    struct Series: Sendable {
        var label: String
        var intervalSeconds: Double
        var mbps: [Double]
    }

    /// How many bulk series the page carries at most (the pick list stays usable, the page small).
    static let maxSeries = 200
    /// How many failed cells are listed with their errors; the rest are counted.
    static let maxFailuresListed = 500

    var runs: [Run] = []
    var scenarios: [Scenario] = []
    /// Resolved metres of each scenario's distance (the first record's `distance_m`).
    var distanceMeters: [Double?] = []
    var transports: [String] = []
    var cells: [Cell] = []
    var failures: [Failure] = []
    var failuresNotListed = 0
    var rtt: [ScenarioTransport: LogHistogram] = [:]
    var series: [Series] = []
    var seriesNotKept = 0
    var warnings: [String] = []
    /// Link modes seen in the records (more than one is a mixed run).
    var linkModes: [String] = []

    struct ScenarioTransport: Hashable {
        var scenario: Int
        var transport: Int
    }

    var scenarioIndex: [Scenario: Int] = [:]
    var transportIndex: [String: Int] = [:]
    var keyIndex: [RecordKey.Digest: Int] = [:]

    /// The failed cells still failed in the end (a later retry that succeeded removes them).
    var finalFailures: [Failure] {
        cells.compactMap { $0.failure.map { failures[$0] } }
    }

    /// Number of cells (last attempt per run x cell x repetition).
    var cellCount: Int { cells.count }

    mutating func scenarioID(_ s: Scenario, distanceMeters d: Double?) -> Int {
        if let i = scenarioIndex[s] { return i }
        scenarios.append(s)
        distanceMeters.append(d)
        scenarioIndex[s] = scenarios.count - 1
        return scenarios.count - 1
    }

    mutating func transportID(_ label: String) -> Int {
        if let i = transportIndex[label] { return i }
        transports.append(label)
        transportIndex[label] = transports.count - 1
        return transports.count - 1
    }

    /// Usable metric values per scenario x transport, in cell order.
    func usableValues() -> [ScenarioTransport: [MetricValues]] {
        var groups: [ScenarioTransport: [MetricValues]] = [:]
        for c in cells where c.usable {
            groups[ScenarioTransport(scenario: c.scenario, transport: c.transport), default: []].append(c.values)
        }
        return groups
    }

    /// Cells (any status) per scenario x transport.
    func cellCounts() -> [ScenarioTransport: Int] {
        var counts: [ScenarioTransport: Int] = [:]
        for c in cells { counts[ScenarioTransport(scenario: c.scenario, transport: c.transport), default: 0] += 1 }
        return counts
    }
}
