import PeerBenchPlugin
import PeerBenchCore

/// The few fields of a record that `compare` keeps: scenario, label, status and one
/// number per metric. Each journal line is decoded as a typed `Record` and reduced to
/// this at once, so 200 000 records cost numbers, not parsed documents.
struct ComparedRecord: Sendable {
    var runID: String
    var cellID: String
    var repetition: Int
    var environment: String
    var distanceLabel: String
    /// `"COUNTxSIZE"` or `"-"`.
    var payload: String
    var label: String
    var ok: Bool
    var linkMode: String
    /// One value per `ComparisonMetric.allCases`, nil where the record has none.
    var values: [Double?]

    init(_ r: Record) {
        runID = r.runID
        cellID = r.cellID
        repetition = r.repetition
        // Cells with a competing flow, or under a link scenario other than static, are
        // another scenario of the comparison than the same cell without: never pooled,
        // shown as `forest · outage-5s` (and the flow's suffix).
        let linkScenario = r.scenario.map { $0.kind == "static" ? "" : " · " + $0.name } ?? ""
        environment = r.environment + linkScenario + (r.crossTraffic?.scenarioSuffix ?? "")
        distanceLabel = r.distanceLabel
        payload = r.payload.map { "\($0.count)x\($0.size)" } ?? "-"
        label = r.transport.label
        ok = r.status == .ok
        linkMode = r.link.mode.rawValue
        values = ComparisonMetric.allCases.map { $0.value(in: r) }
    }

    /// Decodes one journal line's JSON; nil (with the reason) when it is not a record of
    /// the schema compare reads: such lines are skipped and named, as docs/RECORDS.md says.
    static func decode(_ json: JSONValue) -> (record: ComparedRecord?, problem: String?) {
        if let schema = json["schema"]?.stringValue, !Record.readableSchemas.contains(schema) {
            return (nil, "schema \"\(schema)\" is not \(Record.currentSchema), the record schema compare reads")
        }
        let record: Record
        do { record = try Record(json: json) } catch { return (nil, "not a \(Record.currentSchema) record (\(error))") }
        return (ComparedRecord(record), nil)
    }
}
