/// The few fields of a record that `compare` needs, read from its JSON: the one place
/// the analysis touches the record's layout. Everything else of the line is dropped at
/// once, so 200 000 records cost numbers, not parsed documents.
struct ComparedRecord: Sendable {
    var schema: String
    var runID: String
    var cellID: String
    var repetition: Int
    var environment: String
    var distanceLabel: String
    /// `"COUNTxSIZE"` or `"-"`.
    var payload: String
    var label: String
    var status: String
    /// `link.mode`: `emulated`, `none`, `remote`.
    var linkMode: String?
    /// One value per `ComparisonMetric.allCases`, nil where the record has none.
    var values: [Double?]

    static let supportedSchema = "peerbench.record/1"

    /// Reads a record; throws a message naming the first missing key.
    init(_ r: JSONValue) throws(InputError) {
        guard r.objectValue != nil else { throw InputError("not a JSON object") }
        func text(_ key: String, _ v: JSONValue?) throws(InputError) -> String {
            guard let s = v?.stringValue else { throw InputError(path: "$.\(key)", "missing or not a string") }
            return s
        }
        schema = try text("schema", r["schema"])
        guard schema == ComparedRecord.supportedSchema else {
            throw InputError(path: "$.schema", "\"\(schema)\" is not \(ComparedRecord.supportedSchema), the record schema compare reads")
        }
        runID = try text("run_id", r["run_id"])
        cellID = try text("cell_id", r["cell_id"])
        guard let rep = r["repetition"]?.intValue else { throw InputError(path: "$.repetition", "missing or not an integer") }
        repetition = rep
        environment = try text("environment", r["environment"])
        distanceLabel = try text("distance_label", r["distance_label"])
        if let c = r["payload"]?["count"]?.intValue, let s = r["payload"]?["size"]?.intValue { payload = "\(c)x\(s)" } else { payload = "-" }
        label = try text("transport.label", r["transport"]?["label"])
        status = try text("status", r["status"])
        linkMode = r["link"]?["mode"]?.stringValue
        values = ComparisonMetric.allCases.map { $0.value(in: r) }
    }
}
