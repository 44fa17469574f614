import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// The numbers `compare` works on, gathered from one or more run folders: per record
/// only its scenario, label, status and metric values, the latest record of each run,
/// cell and repetition winning (a `--retry-failed` rerun keeps the failed attempt as
/// history). Runs that must not be pooled are refused here (docs/COMPARE.md).
struct ComparisonData: Sendable {
    struct Scenario: Sendable, Hashable {
        var environment: String
        var distanceLabel: String
        var payload: String
    }

    struct Point: Sendable {
        var scenario: Int
        var label: Int
        var ok: Bool
    }

    /// In order of first appearance.
    private(set) var scenarios: [Scenario] = []
    private(set) var labels: [String] = []
    private(set) var points: [Point] = []
    /// `ComparisonMetric.allCases.count` values per point, NaN where missing.
    private(set) var values: [Double] = []
    /// Problems a reader must know about that did not stop the comparison.
    var warnings: [String] = []
    /// Link mode of the records (the first seen); a second mode is refused.
    private(set) var linkMode: String?
    private var linkModeSource = ""

    private var scenarioIndex: [Prehashed<Scenario>: Int] = [:]
    private var labelIndex: [Prehashed<String>: Int] = [:]
    private var pointIndex: [RecordKey.Digest: Int] = [:]
    /// Run of each point (index into `runs`), to keep within-run evidence within one run.
    private(set) var pointRun: [Int] = []
    private var runs: [String: Int] = [:]
    /// The run of the record before: a journal's records are of one run, found without hashing its ID.
    private var lastRun: (id: String, index: Int)?
    /// The manifests read so far (`addManifest`), for `finish`.
    private var manifestHashes: [(dir: String, hash: String)] = []
    private var manifestFloors: [(source: String, floor: MeasurementFloor)] = []
    /// RTT probes in ms of the points that get within-run evidence (`loadProbes`).
    private(set) var probes: [Int: [Double]] = [:]
    /// The runs' measurement floor (their manifests), applied to time metrics.
    var floor: ComparisonFloor?
    /// Labels with at least one value of each metric, any status: the metrics that apply to them.
    private(set) var applies: [[Bool]] = []
    /// The cell ids of each scenario (index) and label (index), `ComparedRecord.cellID`.
    private(set) var cellIDs: [Int: Set<UInt64>] = [:]
    /// The key of a scenario and label in `cellIDs`.
    static func cellKey(scenario: Int, label: Int) -> Int { scenario << 32 | label }

    static let metricCount = ComparisonMetric.allCases.count

    init() {}

    /// Adds one record; `source` names it in errors (`DIR/records.jsonl line 7`), made
    /// only for one. Runs on one thread for every record: one hash probe per index, with
    /// the hashes made where the record was decoded.
    mutating func add(_ r: ComparedRecord, source: @autoclosure () -> String) throws(InputError) {
        if let linkMode, linkMode != r.linkMode {
            throw InputError(
                source: source(), path: "$.link.mode",
                "link mode \"\(r.linkMode)\" differs from \"\(linkMode)\" (\(linkModeSource)): figures over unlike links are not pooled; compare each link mode on its own"
            )
        }
        if linkMode == nil {
            linkMode = r.linkMode
            linkModeSource = source()
        }
        let s = Self.index(of: r.scenario, in: &scenarioIndex, next: scenarios.count)
        if s == scenarios.count { scenarios.append(r.scenario.value) }
        let l = Self.index(of: r.label, in: &labelIndex, next: labels.count)
        if l == labels.count {
            labels.append(r.label.value)
            applies.append([Bool](repeating: false, count: ComparisonData.metricCount))
        }
        // Read before written: a label's row is written once per metric, not once per record.
        for (m, v) in r.values.enumerated() where !v.isNaN && !applies[l][m] { applies[l][m] = true }
        let point = Point(scenario: s, label: l, ok: r.ok)
        cellIDs[Self.cellKey(scenario: s, label: l), default: []].insert(r.cellID)
        let run: Int
        if let last = lastRun, last.id == r.runID {
            run = last.index
        } else {
            run =
                runs[r.runID]
                ?? {
                    runs[r.runID] = runs.count
                    return runs.count - 1
                }()
            lastRun = (r.runID, run)
        }
        let i = Self.index(of: r.key, in: &pointIndex, next: points.count)
        if i < points.count {
            points[i] = point
            pointRun[i] = run
            values.replaceSubrange(i * ComparisonData.metricCount..<(i + 1) * ComparisonData.metricCount, with: r.values)
        } else {
            points.append(point)
            pointRun.append(run)
            values += r.values
        }
    }

    /// The index of `key`, inserting `next` when it has none (then the caller appends):
    /// one probe of the table, where a lookup and an insert are two.
    private static func index<K: Hashable>(of key: K, in table: inout [K: Int], next: Int) -> Int {
        func read(_ slot: inout Int) -> Int { slot }
        return read(&table[key, default: next])
    }

    /// Reads run folders (each with records.jsonl and, normally, manifest.json), streaming.
    static func load(runDirectories dirs: [String]) throws(InputError) -> ComparisonData {
        var data = ComparisonData()
        for dir in dirs {
            data.addManifest(of: dir)
            try data.addJournal(at: dir + "/records.jsonl", dir: dir)
        }
        try data.finish(runDirectories: dirs)
        return data
    }

    /// The matrix hash and measurement floor of a run folder's manifest, before its
    /// records (`add` or `addJournal`); a manifest this version cannot read is a warning.
    mutating func addManifest(of dir: String) {
        do {
            if let m = try RunDirectory(path: dir).readManifest() {
                manifestHashes.append((dir, m.matrixHash))
                if let f = m.measurementFloor { manifestFloors.append((dir, f)) }
            }
        } catch {
            warnings.append("\(dir)/manifest.json: \(error); its matrix is not checked against the other runs")
            // A manifest this version cannot read whole may still carry a readable floor.
            if let f = Self.floorOnly(dir + "/manifest.json") { manifestFloors.append((dir, f)) }
        }
    }

    /// After every folder's manifest and records: the mixed-matrix warning, the floor and
    /// the within-run probes. Throws when no record was read.
    mutating func finish(runDirectories dirs: [String]) throws(InputError) {
        if Set(manifestHashes.map(\.hash)).count > 1 {
            warnings.append(
                "the runs are of different matrices (" + manifestHashes.map { "\($0.dir): \($0.hash)" }.joined(separator: ", ")
                    + "): only scenarios and labels that match are pooled; check that each label means the same transport options in every run")
        }
        if points.isEmpty { throw InputError(source: dirs.joined(separator: ", "), "no records to compare") }
        floor = ComparisonFloor(manifestFloors)
        if floor != nil, manifestFloors.count < dirs.count {
            floor?.notes.append(
                "\(dirs.count - manifestFloors.count) of \(dirs.count) runs have no measurement_floor in their manifest; the others' floor is applied to all"
            )
        }
        try loadProbes(dirs: dirs)
    }

    /// The `measurement_floor` of a manifest read on its own; nil when absent or unreadable.
    static func floorOnly(_ path: String) -> MeasurementFloor? {
        guard let bytes = FileManager.default.contents(atPath: path), let value = try? JSONParser.parse(Array(bytes)),
            let floor = value["measurement_floor"], !floor.isNull
        else { return nil }
        return try? JSONCoding.decode(MeasurementFloor.self, from: floor)
    }

    /// Streams one journal into the data. A torn last line is skipped with a warning, as
    /// `--resume` repairs it; a line that is JSON but not a record of this schema is
    /// skipped with a warning naming it (docs/RECORDS.md); any other unreadable line is
    /// an error naming it.
    mutating func addJournal(at journal: String, dir: String) throws(InputError) {
        reserve(forJournalBytes: (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0)
        var torn: (line: Int, error: String)?
        var foreign: [String] = []
        let opened = try JournalLines.forEach(
            path: journal,
            decode: { bytes in
                Result { () throws(JSONSyntaxError) in try ComparedRecord.decode(bytes) }
            }
        ) { (result, line) throws(InputError) in
            if let t = torn { throw InputError(source: "\(journal) line \(t.line)", "not valid JSON (\(t.error)) and not the last line") }
            let decoded: (record: ComparedRecord?, problem: String?)
            switch result {
            case .success(let d): decoded = d
            case .failure(let error):
                torn = (line, "\(error)")
                return
            }
            guard let record = decoded.record else {
                foreign.append("\(journal) line \(line): \(decoded.problem!); skipped")
                return
            }
            try self.add(record, source: "\(journal) line \(line)")
        }
        guard opened else {
            throw InputError(source: dir, "no records.jsonl here (is it a folder written by peerbench run --out?)")
        }
        warnings += foreign
        if let torn { warnings.append("\(journal): skipped a torn last line (line \(torn.line))") }
    }

    /// Room for the points of a journal of `bytes` (a record line is about a kilobyte),
    /// so 200 000 records fill their index without rehashing it as it grows.
    private mutating func reserve(forJournalBytes bytes: Int) {
        let more = bytes / 1024
        guard more > 0 else { return }
        pointIndex.reserveCapacity(points.count + more)
        points.reserveCapacity(points.count + more)
        pointRun.reserveCapacity(points.count + more)
        values.reserveCapacity((points.count + more) * ComparisonData.metricCount)
    }

    /// The points whose RTT probes give within-run evidence: the single ok repetition of
    /// a label in a scenario (with more, the repetitions are the evidence).
    func singleRepetitionPoints() -> Set<Int> {
        var okByGroup: [Int: [Int]] = [:]
        for (i, p) in points.enumerated() where p.ok { okByGroup[p.scenario << 32 | p.label, default: []].append(i) }
        return Set(okByGroup.values.filter { $0.count == 1 }.map { $0[0] })
    }

    /// Reads `samples.jsonl` beside each journal, streamed, keeping the probes of
    /// `singleRepetitionPoints` only. A folder without the file has no probes; a line that
    /// is not a `peerbench.samples/1` line is skipped with a warning naming it.
    mutating func loadProbes(dirs: [String]) throws(InputError) {
        let wanted = singleRepetitionPoints()
        guard !wanted.isEmpty else { return }
        for dir in dirs {
            let path = dir + "/samples.jsonl"
            var skipped: [Int] = []
            _ = try JournalLines.forEach(path: path, decode: { try? SamplesLine($0) }) { (samples, line) throws(InputError) in
                guard let samples else {
                    skipped.append(line)
                    return
                }
                guard let i = pointIndex[samples.digest], wanted.contains(i),
                    !samples.rttNanos.isEmpty
                else { return }
                probes[i] = samples.rttNanos.map { Double($0) / 1e6 }
            }
            if !skipped.isEmpty {
                warnings.append(
                    "\(path): line\(skipped.count == 1 ? "" : "s") \(skipped.prefix(5).map(String.init).joined(separator: ", "))\(skipped.count > 5 ? ", ..." : "") not peerbench.samples/1, skipped"
                )
            }
        }
    }

    /// Points per scenario, for grouping without rescanning every point per label.
    func pointsByScenario() -> [[Int]] {
        var out = [[Int]](repeating: [], count: scenarios.count)
        for (i, p) in points.enumerated() { out[p.scenario].append(i) }
        return out
    }

    func value(point: Int, metric: ComparisonMetric) -> Double? {
        let v = values[point * ComparisonData.metricCount + metric.index]
        return v.isNaN ? nil : v
    }
}

extension ComparisonData {
    /// The cell ids of the scenario and label of `point`.
    func cellIDs(of point: Int) -> Set<UInt64> {
        cellIDs[Self.cellKey(scenario: points[point].scenario, label: points[point].label)] ?? []
    }

    /// Every cell id of the records.
    var allCellIDs: Set<UInt64> { cellIDs.values.reduce(into: []) { $0.formUnion($1) } }
}
