import PeerBenchPlugin

/// The flat export, records.csv: one row per record, nested fields joined with dots
/// (`rtt_ms.p50`). The columns are derived from `Record` itself (every leaf of a record
/// whose nested objects are all present), so a field added to the record appears here
/// too. Left out: `schema` (constant), `transport.options` and `extra` (they differ per
/// transport; read the JSONL for them).
public enum RecordsCSV {
    static let excluded: Set<String> = ["schema", "transport.options", "extra"]

    public static let columns: [String] = {
        var out: [String] = []
        func walk(_ v: JSONValue, _ prefix: String) {
            if excluded.contains(prefix) { return }
            if case .object(let o) = v {
                for m in o { walk(m.value, prefix.isEmpty ? m.key : prefix + "." + m.key) }
            } else {
                out.append(prefix)
            }
        }
        walk(Record.template.json, "")
        return out
    }()

    public static var header: String { columns.joined(separator: ",") }

    /// One CSV row for a record.
    public static func row(_ record: Record) -> String { row(json: record.json) }

    /// One CSV row from a record's JSON as read from a journal line (merge decodes
    /// each line once to check it and writes the row from the same JSON).
    public static func row(json: JSONValue) -> String {
        columns.map { column in
            var v: JSONValue? = json
            for part in column.split(separator: ".") { v = v?[String(part)] }
            return field(v ?? .null)
        }.joined(separator: ",")
    }

    static func field(_ v: JSONValue) -> String {
        let text: String
        switch v {
        case .null: return ""
        case .string(let s): text = s
        case .number(let n): return JSONValue.format(n)
        case .bool(let b): return b ? "true" : "false"
        default: text = v.compactText
        }
        return quoted(text)
    }

    /// `text` as one RFC 4180 field: quoted (inner quotes doubled) when it holds a comma,
    /// a quote or a line break (CR or LF). The one CSV escaper of every CSV PeerBench writes.
    public static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension Record {
    /// A record with every nested object present, for deriving the CSV columns.
    static let template: Record = {
        let transport = TransportSpec(plugin: "", label: "", options: nil, effectiveOptions: .null, usesPayload: true, index: 0)
        let cell = Cell(id: "", repetition: 0, seed: 0, transport: transport, environment: EnvironmentSpec(name: "", kind: .builtIn, json: .null), distance: .meters(0),
                        payload: Payload(count: 0, size: 0))
        var m = TransportMeasurement()
        m.rttNanos = [0]
        m.rttLoadedNanos = [0]
        m.delivery = Delivery(sentMessages: 0, receivedMessages: 0, sentBytes: 0, receivedBytes: 0)
        var r = Record(runID: "", cell: cell, link: ResolvedLink(environment: "", distanceMeters: nil, distanceLabel: ""),
                       linkMode: .none, counters: nil, status: .ok, error: nil, startedAt: .init(timeIntervalSince1970: 0),
                       totalSeconds: 0, measurement: m)
        r.link.radioOnFraction = EndPair(client: nil, server: nil)
        r.link.energyMj = EndPair(client: nil, server: nil)
        return r
    }()
}

extension String {
    fileprivate func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
