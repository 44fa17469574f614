import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// `peerbench compare --measured --format json`: the comparison of a run with field
/// measurements as data. A contract (docs/COMPARE.md, "Against field measurements"):
/// extend it, never rename or remove a key. Written with `JSONCoding` (keys in the
/// order declared here, every key present, `null` where a value does not exist).
public struct MeasuredDocument: Sendable, Equatable, Codable {
    public static let currentSchema = "peerbench.compare-measured/1"
    static let quartileMethodText = "linear interpolation between order statistics (Hyndman-Fan type 7, numpy's default)"

    public var schema = MeasuredDocument.currentSchema
    public var quartileMethod = MeasuredDocument.quartileMethodText
    public var runs: [String]
    public var measuredFiles: [MeasuredComparison.File]
    public var mapping: MeasuredMapping
    /// Emulated records in the RTT rows by `rtt_method` (`none`: the record has none).
    public var rttMethods: [RTTMethod]
    public var tables: [Table]
    /// Records of the runs (ok or partial) that match no measured row.
    public var unmatchedRecords: Int
    /// Records of the runs left out for their status.
    public var notCountedRecords: Int
    /// What a reader must know to read the numbers (method differences, fallbacks).
    public var notes: [String]
    /// Skipped CSV rows and journal lines, each naming its file and line.
    public var warnings: [String]

    enum CodingKeys: String, CodingKey {
        case schema, quartileMethod = "quartile_method", runs, measuredFiles = "measured_files", mapping
        case rttMethods = "rtt_methods", tables, unmatchedRecords = "unmatched_records"
        case notCountedRecords = "not_counted_records", notes, warnings
    }

    public struct RTTMethod: Sendable, Equatable, Codable {
        public var method: String
        public var records: Int
    }

    /// One metric's rows and how many emulated medians fall inside the measured quartiles.
    public struct Table: Sendable, Equatable, Codable {
        public var metric: MeasuredComparison.Metric
        public var title: String
        public var unit: String
        public var measuredColumn: String
        public var emulatedKey: String
        public var rows: [Row]
        /// Rows whose emulated median lies in the measured [q1, q3].
        public var inside: Int
        /// Rows with values on both sides (the `n` of "inside of n").
        public var compared: Int

        enum CodingKeys: String, CodingKey {
            case metric, title, unit, measuredColumn = "measured_column", emulatedKey = "emulated_key", rows, inside, compared
        }
    }

    /// Null keys are what the row pools over (`place`, `distance_m` for RTT rows, ...).
    public struct Row: Sendable, Equatable, Codable {
        public var transport: String
        public var place: String?
        public var distanceM: Double?
        public var count: Int?
        public var size: Int?
        public var measured: Side
        public var emulated: Side
        public var inside: Bool?
        /// Emulated median / measured median.
        public var ratio: Double?
        /// Emulated values that are `throughput_mbps` standing in for `receiver_span_mbps`.
        public var emulatedFromThroughput: Int

        enum CodingKeys: String, CodingKey {
            case transport, place, distanceM = "distance_m", count, size, measured, emulated, inside, ratio
            case emulatedFromThroughput = "emulated_from_throughput"
        }
    }

    /// One side's sample: its size and, when it has values, median and quartiles.
    public struct Side: Sendable, Equatable, Codable {
        public var n: Int
        public var median: Double?
        public var q1: Double?
        public var q3: Double?

        init(_ values: [Double]) {
            let q = Quartiles(values)
            n = values.count
            median = q?.median
            q1 = q?.q1
            q3 = q?.q3
        }
    }

    public init(_ c: MeasuredComparison) {
        runs = c.runs
        measuredFiles = c.files
        mapping = c.mapping
        rttMethods = c.rttMethods.map { RTTMethod(method: $0.method, records: $0.records) }
        tables = c.tables.map { t in
            let rows = t.rows.map { r in
                Row(
                    transport: r.transport, place: r.place, distanceM: r.distanceM, count: r.count, size: r.size,
                    measured: Side(r.measured), emulated: Side(r.emulated), inside: r.inside, ratio: r.ratio,
                    emulatedFromThroughput: r.emulatedFromThroughput)
            }
            return Table(
                metric: t.metric, title: t.metric.title, unit: t.metric.unit, measuredColumn: t.metric.measuredColumn,
                emulatedKey: t.metric.emulatedKey, rows: rows, inside: rows.count { $0.inside == true },
                compared: rows.count { $0.inside != nil })
        }
        unmatchedRecords = c.unmatchedRecords
        notCountedRecords = c.notCountedRecords
        warnings = c.warnings
        notes = Self.notes(c)
    }

    static func notes(_ c: MeasuredComparison) -> [String] {
        var notes: [String] = []
        let rttRecords = c.rttMethods.reduce(0) { $0 + $1.records }
        // The app's send loop is the study's own method; pipelined probes with or without
        // an interval are close to it; ping-pong is not.
        let notPipelined = c.rttMethods.filter { $0.method != "pipelined" && $0.method != "send-loop" }
        if !notPipelined.isEmpty {
            let n = notPipelined.reduce(0) { $0 + $1.records }
            let which = notPipelined.map {
                "\($0.records) \($0.method == "none" ? "none (no rtt_method: ping-pong, written before peerbench.record/4)" : $0.method)"
            }
            notes.append(
                "the study used 1 000 pipelined RTT probes; of the \(rttRecords) emulated records in the RTT rows, \(n) did not (rtt_method: "
                    + which.joined(separator: ", ") + "); matrices/field-study-2025.json runs them from the app's send loop")
        }
        let fallback = c.tables.filter { $0.metric == .transferMbps }.flatMap(\.rows).reduce(0) { $0 + $1.emulatedFromThroughput }
        if fallback > 0 {
            notes.append(
                "\(fallback) emulated transfer value\(fallback == 1 ? " is" : "s are") throughput_mbps, not the study's receiver data rate: "
                    + "\(fallback == 1 ? "its record has" : "their records have") no "
                    + "receiver_span_mbps (written before peerbench.record/4)")
        }
        let skipped = c.files.reduce(0) { $0 + $1.skippedRows }
        if skipped > 0 { notes.append("\(skipped) measured row\(skipped == 1 ? " was" : "s were") skipped (warnings below)") }
        if c.unmatchedRecords > 0 {
            notes.append(
                "\(c.unmatchedRecords) emulated record\(c.unmatchedRecords == 1 ? "" : "s") (ok or partial) match no measured row: "
                    + "a transport, place, distance or payload the measured files do not have")
        }
        if c.notCountedRecords > 0 {
            notes.append(
                "\(c.notCountedRecords) emulated record\(c.notCountedRecords == 1 ? " is" : "s are") not counted: status neither ok nor partial")
        }
        return notes
    }
}
