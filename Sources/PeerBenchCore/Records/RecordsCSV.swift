import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

#if canImport(Glibc)
    import Glibc
#endif

/// The flat export, records.csv: one row per record, nested fields joined with dots
/// (`rtt_ms.p50`). The columns are derived from `Record` itself (every leaf of a record
/// whose nested objects are all present), so a field added to the record appears here
/// too. Left out: `schema` (constant), `transport.options` and `extra` (they differ per
/// transport; read the JSONL for them).
public enum RecordsCSV {
    static let excluded: Set<String> = [
        Record.CodingKeys.schema.rawValue, Record.CodingKeys.extra.rawValue,
        Record.CodingKeys.transport.rawValue + "." + Record.Transport.CodingKeys.options.rawValue,
    ]

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

    /// Each column's path of keys, split once.
    static let columnPaths: [[String]] = columns.map { $0.split(separator: ".").map(String.init) }

    /// One CSV row for a record, read as its journal line would be.
    public static func row(_ record: Record) -> String {
        // A record this version wrote always reads back; a failure here is a bug in Record's encoding.
        row(try! JSONTape(parsing: Array(record.json.compactText.utf8)).root)
    }

    /// One CSV row from a record's journal line as read (merge checks each line once and
    /// writes the row from the same tokens): one pass over the record's members, each
    /// matched against the columns below it (`ColumnTree`).
    public static func row(_ record: JSONTape.Node) -> String {
        var fields = [String](repeating: "", count: columns.count)
        ColumnTree.root.fill(record, into: &fields)
        return fields.joined(separator: ",")
    }

    /// The columns as a tree of keys: `rtt_ms` with children `count` ... `stddev`.
    final class ColumnTree: Sendable {
        let children: [(key: [UInt8], node: ColumnTree)]
        /// `children` by their key's length: a member's key is compared with one or two
        /// keys of its length, not with every child (a record has some 50 at the top).
        private let byLength: [[(key: [UInt8], node: ColumnTree)]]
        /// The column of a leaf.
        let column: Int?

        init(paths: [(path: ArraySlice<String>, column: Int)]) {
            var order: [String] = []
            var below: [String: [(path: ArraySlice<String>, column: Int)]] = [:]
            var leaf: Int?
            for p in paths {
                guard let first = p.path.first else {
                    leaf = p.column
                    continue
                }
                if below[first] == nil { order.append(first) }
                below[first, default: []].append((p.path.dropFirst(), p.column))
            }
            children = order.map { (Array($0.utf8), ColumnTree(paths: below[$0]!)) }
            var byLength = [[(key: [UInt8], node: ColumnTree)]](repeating: [], count: (children.map(\.key.count).max() ?? 0) + 1)
            for c in children { byLength[c.key.count].append(c) }
            self.byLength = byLength
            column = leaf
        }

        private func child(_ key: UnsafeBufferPointer<UInt8>) -> ColumnTree? {
            guard key.count < byLength.count else { return nil }
            for c in byLength[key.count] where c.key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 }) {
                return c.node
            }
            return nil
        }

        static let root = ColumnTree(paths: columnPaths.enumerated().map { ($1[...], $0) })

        func fill(_ node: JSONTape.Node, into fields: inout [String]) {
            node.forEachMember { key, value in
                guard let child = child(key) else { return }
                if let c = child.column {
                    fields[c] = RecordsCSV.field(value.value)
                } else if value.kind == .object {
                    child.fill(value, into: &fields)
                }
            }
        }
    }

    static func field(_ v: JSONValue) -> String {
        switch v {
        case .null: return ""
        case .string(let s): return quoted(s)
        case .number(let n): return JSONValue.format(n)
        case .bool(let b): return b ? "true" : "false"
        default: return quoted(v.compactText)
        }
    }

    /// `text` as one RFC 4180 field: quoted (inner quotes doubled) when it holds a comma,
    /// a quote or a line break (CR or LF). The one CSV escaper of every CSV PeerBench writes.
    public static func quoted(_ text: String) -> String {
        // By UTF-8 byte, not Character: faster, and a CR LF pair (one Character, equal to
        // neither "\r" nor "\n") is a line break too.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension Record {
    /// A record with every nested object present, for deriving the CSV columns.
    static let template: Record = {
        let transport = TransportSpec(plugin: "", label: "", options: nil, effectiveOptions: .null, usesPayload: true, index: 0)
        let cell = Cell(
            id: "", repetition: 0, seed: 0, transport: transport, environment: EnvironmentSpec(name: "", kind: .builtIn, json: .null),
            distance: .meters(0),
            payload: Payload(count: 0, size: 0))
        var m = TransportMeasurement()
        m.rttNanos = [0]
        m.rttLoadedNanos = [0]
        m.delivery = Delivery(sentMessages: 0, receivedMessages: 0, sentBytes: 0, receivedBytes: 0)
        var r = Record(
            runID: "", cell: cell, link: ResolvedLink(environment: "", distanceMeters: nil, distanceLabel: ""),
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
