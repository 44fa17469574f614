import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// Measured tests of a field study against the emulated records of one or more runs:
/// per metric a table of rows (transport x place, x distance, or x payload), each with
/// both samples, their quartiles, whether the emulated median lies in the measured
/// interquartile range, and the ratio of the medians (docs/COMPARE.md, "Against field
/// measurements"). `MeasuredDocument` is its JSON form; `report` draws its samples.
public struct MeasuredComparison: Sendable {
    public enum Metric: String, Sendable, CaseIterable, Codable {
        case rttMeanMs = "rtt_mean_ms"
        case rttJitterMs = "rtt_jitter_ms"
        case transferMbps = "transfer_mbps"
        case transferByPayloadMbps = "transfer_by_payload_mbps"

        public var title: String {
            switch self {
            case .rttMeanMs: "Mean RTT (ms) per transport x place"
            case .rttJitterMs: "RTT standard deviation, the study's jitter (ms), per transport x place"
            case .transferMbps: "Transfer speed (Mbit/s) per transport x place x distance"
            case .transferByPayloadMbps: "Transfer speed (Mbit/s) per transport x count x size, places pooled"
            }
        }

        /// The CSV column of the measured side.
        public var measuredColumn: String {
            switch self {
            case .rttMeanMs: MeasuredCSV.averageRtt
            case .rttJitterMs: MeasuredCSV.jitter
            case .transferMbps, .transferByPayloadMbps: MeasuredCSV.speed
            }
        }

        /// The record key of the emulated side.
        public var emulatedKey: String {
            switch self {
            case .rttMeanMs: Record.CodingKeys.rttMs.rawValue + "." + Record.RTTStats.CodingKeys.mean.rawValue
            case .rttJitterMs: Record.CodingKeys.rttMs.rawValue + "." + Record.RTTStats.CodingKeys.stddev.rawValue
            case .transferMbps, .transferByPayloadMbps: Record.CodingKeys.receiverSpanMbps.rawValue
            }
        }

        public var unit: String { self == .rttMeanMs || self == .rttJitterMs ? "ms" : "Mbit/s" }
    }

    /// One row: what it pools over is given by the nil keys (RTT rows: distances and
    /// payloads; transfer rows: payloads; by-payload rows: places and distances).
    public struct Row: Sendable {
        public var transport: String
        public var place: String?
        public var distanceM: Double?
        public var count: Int?
        public var size: Int?
        public var measured: [Double] = []
        public var emulated: [Double] = []
        /// Emulated values that are `throughput_mbps` (records without `receiver_span_mbps`).
        public var emulatedFromThroughput = 0
        /// The (place, distance, count, size) combinations of the measured tests, as
        /// `coverKey`s: an emulated record joins the row only at one of them, so both sides
        /// pool the same design (the study's inner city has transfers at 1 m only).
        var cover: Set<String> = []

        var measuredQuartiles: Quartiles? { Quartiles(measured) }
        var emulatedQuartiles: Quartiles? { Quartiles(emulated) }

        /// The emulated median lies in the measured [q1, q3]; nil when a side has no values.
        public var inside: Bool? {
            guard let m = measuredQuartiles, let e = emulatedQuartiles else { return nil }
            return m.contains(e.median)
        }

        /// Emulated median / measured median; nil when a side has no values or the measured median is 0.
        public var ratio: Double? {
            guard let m = measuredQuartiles, let e = emulatedQuartiles, m.median != 0 else { return nil }
            return e.median / m.median
        }
    }

    public struct Table: Sendable {
        public var metric: Metric
        public var rows: [Row]
    }

    public var tables: [Table]
    /// Counts of the emulated records that joined an RTT row, by `rtt_method` (`"none"`: absent or null).
    public var rttMethods: [(method: String, records: Int)]
    /// Emulated records (ok or partial) that joined no row: places, transports, distances
    /// or payloads the measured files do not have.
    public var unmatchedRecords: Int
    /// Emulated records left out for their status (not ok or partial).
    public var notCountedRecords: Int
    /// The run folders and the measured files read, in the order given.
    public var runs: [String] = []
    /// The mapping the measured files were read with.
    public var mapping: MeasuredMapping = .fieldStudy2025
    public var files: [File] = []
    /// Skipped CSV rows and journal lines, one line each, file and line named.
    public var warnings: [String] = []

    /// One measured file: its kind, the tests read and the rows skipped.
    public struct File: Sendable, Equatable, Codable {
        public var path: String
        public var kind: MeasuredTest.Kind
        public var tests: Int
        public var skippedRows: Int

        enum CodingKeys: String, CodingKey { case path, kind, tests, skippedRows = "skipped_rows" }
    }

    /// Reads the measured files (each refused or read whole, bad rows skipped) and the
    /// runs' journals (streamed) and compares them.
    public static func load(runDirectories dirs: [String], measuredFiles: [String], mapping: MeasuredMapping) throws(InputError) -> MeasuredComparison
    {
        var csvs: [MeasuredCSV] = []
        var problems: [InputProblem] = []
        for path in measuredFiles {
            do { csvs.append(try MeasuredCSV.read(path: path, mapping: mapping)) } catch { problems += error.problems }
        }
        // Every refused file at once: a user fixing headers should not meet them one run at a time.
        if !problems.isEmpty { throw InputError(problems) }
        let tests = csvs.flatMap(\.tests)
        if tests.isEmpty {
            let skipped = csvs.flatMap(\.warnings)
            throw InputError(
                [InputProblem(source: measuredFiles.joined(separator: ", "), path: nil, "no usable measured test: every row was skipped")]
                    + skipped.prefix(10).map { InputProblem(path: nil, $0) })
        }
        let emulated = try EmulatedTests.load(runDirectories: dirs)
        var c = MeasuredComparison(measured: tests, emulated: emulated)
        c.runs = dirs
        c.mapping = mapping
        c.files = csvs.map { File(path: $0.path, kind: $0.kind, tests: $0.tests.count, skippedRows: $0.skipped) }
        c.warnings = csvs.flatMap(\.warnings) + emulated.warnings
        return c
    }

    /// Millimetres: distances read from CSV text and from records meet on this grid.
    /// Beyond a million kilometres (a record's `distance_m` is not checked) all distances
    /// share one key rather than trap converting to Int.
    static func millimetres(_ m: Double) -> Int {
        guard m.isFinite, abs(m) < 1e12 else { return Int.min }
        return Int((m * 1000).rounded())
    }

    static func coverKey(place: String?, distanceM: Double?, count: Int?, size: Int?) -> String {
        "\(place ?? "*")|\(distanceM.map { "\(millimetres($0))" } ?? "*")|\(count.map(String.init) ?? "*")|\(size.map(String.init) ?? "*")"
    }

    init(measured: [MeasuredTest], emulated: EmulatedTests) {
        self.init(measured: measured, emulatedTests: emulated.tests.filter(\.counted), notCounted: emulated.notCounted)
    }

    /// The measured tests grouped into the tables' rows, and the order transports and
    /// places first appear in.
    struct Grouped {
        var rtt = RowSet(), transfer = RowSet(), byPayload = RowSet()
        var transportOrder: [String] = [], placeOrder: [String] = []
    }

    static func group(_ measured: [MeasuredTest]) -> Grouped {
        var g = Grouped()
        for t in measured {
            if !g.transportOrder.contains(t.transport) { g.transportOrder.append(t.transport) }
            if !g.placeOrder.contains(t.place) { g.placeOrder.append(t.place) }
            switch t.kind {
            case .rtt:
                let key = "\(t.transport)|\(t.place)"
                g.rtt.add(
                    key: key, row: Row(transport: t.transport, place: t.place), value: t.averageRttMs!, second: t.jitterMs!,
                    cover: Self.coverKey(place: nil, distanceM: t.distanceM, count: nil, size: nil))
            case .transfer:
                let dist = Self.millimetres(t.distanceM)
                g.transfer.add(
                    key: "\(t.transport)|\(t.place)|\(dist)", row: Row(transport: t.transport, place: t.place, distanceM: t.distanceM),
                    value: t.speedMbps!, cover: Self.coverKey(place: nil, distanceM: nil, count: t.count, size: t.size))
                g.byPayload.add(
                    key: "\(t.transport)|\(t.count!)|\(t.size!)", row: Row(transport: t.transport, count: t.count, size: t.size),
                    value: t.speedMbps!, cover: Self.coverKey(place: t.place, distanceM: t.distanceM, count: nil, size: nil))
            }
        }
        return g
    }

    init(measured: [MeasuredTest], emulatedTests: [EmulatedTests.Test], notCounted: Int) {
        // Rows in the order their first measured test appears; distances and payloads ascending.
        let grouped = Self.group(measured)
        var rtt = grouped.rtt, transfer = grouped.transfer, byPayload = grouped.byPayload
        let transportOrder = grouped.transportOrder, placeOrder = grouped.placeOrder
        var methods: [String: Int] = [:]
        var unmatched = 0
        for e in emulatedTests {
            var joined = false
            if let d = e.distanceM, let i = rtt.index["\(e.transport)|\(e.place)"],
                rtt.rows[i].cover.contains(Self.coverKey(place: nil, distanceM: d, count: nil, size: nil)),
                e.rttMeanMs != nil || e.rttStddevMs != nil
            {
                if let v = e.rttMeanMs { rtt.rows[i].emulated.append(v) }
                if let v = e.rttStddevMs { rtt.second[i].append(v) }
                methods[e.rttMethod ?? "none", default: 0] += 1
                joined = true
            }
            if let d = e.distanceM, let v = e.transferMbps, let c = e.count, let s = e.size {
                if let i = transfer.index["\(e.transport)|\(e.place)|\(Self.millimetres(d))"],
                    transfer.rows[i].cover.contains(Self.coverKey(place: nil, distanceM: nil, count: c, size: s))
                {
                    transfer.rows[i].emulated.append(v)
                    if e.fromThroughput { transfer.rows[i].emulatedFromThroughput += 1 }
                    joined = true
                }
                if let i = byPayload.index["\(e.transport)|\(c)|\(s)"],
                    byPayload.rows[i].cover.contains(Self.coverKey(place: e.place, distanceM: d, count: nil, size: nil))
                {
                    byPayload.rows[i].emulated.append(v)
                    if e.fromThroughput { byPayload.rows[i].emulatedFromThroughput += 1 }
                    joined = true
                }
            }
            if !joined { unmatched += 1 }
        }
        let t = { (s: String) in transportOrder.firstIndex(of: s)! }
        let p = { (s: String?) in s.flatMap { placeOrder.firstIndex(of: $0) } ?? 0 }
        let rttRows = rtt.rows.sorted { (t($0.transport), p($0.place)) < (t($1.transport), p($1.place)) }
        var jitterRows = rtt.rows
        for i in jitterRows.indices {
            jitterRows[i].measured = rtt.measuredSecond[i]
            jitterRows[i].emulated = rtt.second[i]
        }
        jitterRows.sort { (t($0.transport), p($0.place)) < (t($1.transport), p($1.place)) }
        tables = [
            Table(metric: .rttMeanMs, rows: rttRows),
            Table(metric: .rttJitterMs, rows: jitterRows),
            Table(
                metric: .transferMbps,
                rows: transfer.rows.sorted {
                    (t($0.transport), p($0.place), $0.distanceM ?? 0) < (t($1.transport), p($1.place), $1.distanceM ?? 0)
                }),
            Table(
                metric: .transferByPayloadMbps,
                rows: byPayload.rows.sorted {
                    (t($0.transport), $0.count ?? 0, $0.size ?? 0) < (t($1.transport), $1.count ?? 0, $1.size ?? 0)
                }),
        ].filter { !$0.rows.isEmpty }
        rttMethods = methods.sorted { $0.key < $1.key }.map { (method: $0.key, records: $0.value) }
        unmatchedRecords = unmatched
        notCountedRecords = notCounted
    }

    /// Rows by key, with a second measured and emulated sample per row (RTT rows carry the
    /// jitter beside the mean: one grouping, two tables).
    struct RowSet {
        var rows: [Row] = []
        var index: [String: Int] = [:]
        var measuredSecond: [[Double]] = []
        var second: [[Double]] = []

        mutating func add(key: String, row: Row, value: Double, second value2: Double? = nil, cover: String) {
            let i =
                index[key]
                ?? {
                    index[key] = rows.count
                    rows.append(row)
                    measuredSecond.append([])
                    second.append([])
                    return rows.count - 1
                }()
            rows[i].measured.append(value)
            if let value2 { measuredSecond[i].append(value2) }
            rows[i].cover.insert(cover)
        }
    }
}
