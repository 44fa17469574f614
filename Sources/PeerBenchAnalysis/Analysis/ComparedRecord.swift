import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// The few fields of a record that `compare` keeps: scenario, label, status and one
/// number per metric, read from the journal line's tokens (`RecordLine`), so 200 000
/// records cost numbers, not parsed documents.
struct ComparedRecord: Sendable {
    var key: RecordKey.Digest
    var runID: String
    /// Environment (with its link scenario and flow), distance label and payload.
    var scenario: Prehashed<ComparisonData.Scenario>
    var label: Prehashed<String>
    var ok: Bool
    /// The record's cell id as a number (16 hex digits; 0 when it is not one), to tell
    /// whether two runs' ids agree (`BaselineDocument`).
    var cellID: UInt64
    var linkMode: String
    /// One value per `ComparisonMetric.allCases`, NaN where the record has none (as
    /// `ComparisonData` keeps them).
    var values: [Double]

    init(_ r: RecordLine) throws(RecordLine.Problem) {
        key = r.digest
        runID = r.runID
        scenario = Prehashed(
            ComparisonData.Scenario(
                environment: Self.scenarioEnvironment(r), distanceLabel: r.distanceLabel,
                payload: r.payload.map { "\($0.count)x\($0.size)" } ?? "-"))
        label = Prehashed(r.label)
        ok = r.status == .ok
        cellID = UInt64(r.cellID, radix: 16) ?? 0
        linkMode = r.linkMode
        values = try r.numbers(ComparisonMetric.recordPaths)
    }

    /// A record in memory, read as its journal line would be.
    init(_ r: Record) {
        // A record this version wrote always reads back; a failure here is a bug in Record's encoding.
        try! self.init(RecordLine(Array(r.json.compactText.utf8)[...]))
    }

    /// Cells with a competing flow, under a link scenario other than static, or with a
    /// workload other than the upload are another scenario of the comparison than the
    /// same cell without: never pooled, shown as `forest · outage-5s · voice` (and the flow's suffix).
    static func scenarioEnvironment(_ r: RecordLine) -> String {
        let linkScenario = r.scenario.map { $0.kind == "static" ? "" : " · " + $0.name } ?? ""
        return r.environment + linkScenario + r.workloadSuffix + r.crossTrafficSuffix
    }

    /// Reads one journal line; nil (with the reason) when it is not a record of the
    /// schema compare reads: such lines are skipped and named, as docs/RECORDS.md says.
    /// A line that is not JSON at all is thrown, for the caller to decide if it is torn.
    static func decode(_ bytes: ArraySlice<UInt8>) throws(JSONSyntaxError) -> (record: ComparedRecord?, problem: String?) {
        do {
            return (try ComparedRecord(try RecordLine(bytes)), nil)
        } catch {
            switch error {
            case .syntax(let e): throw e
            case .schema(let s?): return (nil, "schema \"\(s)\" is not \(Record.currentSchema), the record schema compare reads")
            default: return (nil, "not a \(Record.currentSchema) record (\(error))")
            }
        }
    }
}

/// A value with its hash computed once, where the line is decoded (on any core), so the
/// sequential merge of 200 000 lines hashes one integer per key, not its strings.
struct Prehashed<Value: Hashable & Sendable>: Sendable, Hashable {
    let value: Value
    private let hash: Int

    init(_ value: Value) {
        self.value = value
        hash = value.hashValue
    }

    static func == (a: Prehashed, b: Prehashed) -> Bool { a.hash == b.hash && a.value == b.value }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
