#if canImport(Glibc)
import Glibc
#endif
import PeerBenchPlugin

/// One journal line as the analysis reads it: the fields that say which cell it is and
/// how it ended, read straight from the line's tokens (`JSONTape`), and any number of the
/// record on demand. compare, report and merge read 200 000 records this way in about
/// a second, where decoding each as a whole `Record` took twenty (docs/PERFORMANCE.md).
///
/// It checks what it reads as `Record`'s decoder would (the schema, required keys, their
/// types), so a line it accepts is a record every reader of this version can read.
public struct RecordLine: Sendable {
    /// Why a line is not a readable record.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// Not JSON at all (a torn last line, or a foreign file).
        case syntax(JSONSyntaxError)
        /// JSON, but not an object.
        case notAnObject
        /// A `schema` this version does not read (nil: the key is missing or not a string).
        case schema(String?)
        /// A key of the record is missing or of the wrong type: `$.status: missing`.
        case field(String)

        public var description: String {
            switch self {
            case .syntax(let e): e.description
            case .notAnObject: "not a JSON object"
            case .schema(let s): "schema \(s.map { "\"\($0)\"" } ?? "missing") is not \(Record.currentSchema)"
            case .field(let f): f
            }
        }
    }

    public let root: JSONTape.Node
    public let schema: String
    public let runID: String
    public let cellID: String
    public let repetition: Int
    public let status: CellStatus
    public let error: String?
    public let environment: String
    public let distanceLabel: String
    public let distanceM: Double?
    public let payload: (count: Int, size: Int)?
    /// `transport.label`.
    public let label: String
    /// `link.mode`.
    public let linkMode: String
    /// `scenario.name` and `.kind`; nil in records before /3.
    public let scenario: (name: String, kind: String)?
    /// `workload.name`; nil in records before /6 and for transports without a payload.
    public let workloadName: String?
    /// `cross_traffic.service_class` and `.offered_mbps`; nil service class: no competing flow.
    public let crossTraffic: (serviceClass: String?, offeredMbps: Double?)

    /// The top-level keys read, found in one pass over the record's members.
    enum Field: Int, CaseIterable {
        case schema, runID, cellID, repetition, status, error, environment, distanceLabel, distanceM, payload, transport, link
        case scenario, crossTraffic, throughputMbps, rttMs, jitterMs, delivery, connectMs, extra, workload
        // The workload metrics' keys: found in the one pass too, so a record without them
        // (every upload, every record before /6) costs no search of its members for each.
        case requestResponseMs, frameDelayMs, frames

        /// The record's key, in case order.
        static let keys = ["schema", "run_id", "cell_id", "repetition", "status", "error", "environment", "distance_label", "distance_m",
                           "payload", "transport", "link", "scenario", "cross_traffic", "throughput_mbps", "rtt_ms", "jitter_ms",
                           "delivery", "connect_ms", "extra", "workload", "request_response_ms", "frame_delay_ms", "frames"]
        var key: String { Self.keys[rawValue] }
        var index: Int { rawValue }
        init?(key: String) {
            guard let i = Self.keys.firstIndex(of: key) else { return nil }
            self.init(rawValue: i)
        }

        /// The fields by their key's length, then bytes: a member's key is matched with a
        /// comparison or two, not twenty.
        static let byLength: [[(key: [UInt8], field: Field)]] = {
            var table = [[(key: [UInt8], field: Field)]](repeating: [], count: 32)
            for f in allCases { table[f.key.utf8.count].append((Array(f.key.utf8), f)) }
            return table
        }()

        static func of(_ key: UnsafeBufferPointer<UInt8>) -> Field? {
            guard key.count > 0, key.count < byLength.count else { return nil }
            for candidate in byLength[key.count]
            where candidate.key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 }) {
                return candidate.field
            }
            return nil
        }
    }

    /// The members found, indexed by `Field`.
    private let fields: [JSONTape.Node?]

    public init(_ bytes: ArraySlice<UInt8>) throws(Problem) {
        let tape: JSONTape
        do { tape = try JSONTape(parsing: bytes) } catch { throw .syntax(error) }
        let r = tape.root
        guard r.kind == .object else { throw .notAnObject }
        var fields = [JSONTape.Node?](repeating: nil, count: Field.allCases.count)
        r.forEachMember { key, value in
            if let f = Field.of(key) { fields[f.index] = value }
        }
        self.fields = fields
        func field(_ f: Field) -> JSONTape.Node? { fields[f.index] }
        guard let schema = field(.schema)?.string, Record.readableSchemas.contains(schema) else { throw .schema(field(.schema)?.string) }
        root = r
        self.schema = schema
        runID = try Self.string(field(.runID), "$.run_id")
        cellID = try Self.string(field(.cellID), "$.cell_id")
        repetition = try Self.int(field(.repetition), "$.repetition")
        let statusText = try Self.string(field(.status), "$.status")
        guard let status = CellStatus(rawValue: statusText) else { throw .field("$.status: unknown status \"\(statusText)\"") }
        self.status = status
        error = try Self.optional(field(.error), "$.error") { $0.string }
        environment = try Self.string(field(.environment), "$.environment")
        distanceLabel = try Self.string(field(.distanceLabel), "$.distance_label")
        distanceM = try Self.optional(field(.distanceM), "$.distance_m") { $0.double }
        if let p = field(.payload), !p.isNull {
            guard p.kind == .object else { throw .field("$.payload: expected an object") }
            payload = (try Self.int(p["count"], "$.payload.count"), try Self.int(p["size"], "$.payload.size"))
        } else {
            payload = nil
        }
        label = try Self.string(try Self.object(field(.transport), "$.transport")["label"], "$.transport.label")
        linkMode = try Self.string(try Self.object(field(.link), "$.link")["mode"], "$.link.mode")
        if let s = field(.scenario), !s.isNull {
            guard s.kind == .object else { throw .field("$.scenario: expected an object") }
            scenario = (try Self.string(s["name"], "$.scenario.name"), try Self.string(s["kind"], "$.scenario.kind"))
        } else {
            scenario = nil
        }
        if let w = field(.workload), !w.isNull {
            guard w.kind == .object else { throw .field("$.workload: expected an object") }
            workloadName = try Self.string(w["name"], "$.workload.name")
        } else {
            workloadName = nil
        }
        if let c = field(.crossTraffic), !c.isNull {
            guard c.kind == .object else { throw .field("$.cross_traffic: expected an object") }
            crossTraffic = (try Self.optional(c["service_class"], "$.cross_traffic.service_class") { $0.string },
                            try Self.optional(c["offered_mbps"], "$.cross_traffic.offered_mbps") { $0.double })
        } else {
            crossTraffic = (nil, nil)
        }
    }

    /// A path of keys into a record, resolved against `Field` once, where it is made.
    public struct Path: Sendable {
        let keys: [String]
        let top: Field?

        public init(_ keys: [String]) {
            precondition(!keys.isEmpty, "a record path names at least one key")
            self.keys = keys
            top = Field(key: keys[0])
        }
    }

    /// The number at `path` (`["rtt_ms", "p50"]`): nil where a key on the way is absent or
    /// null; an error naming the JSON path where the value is there but not a number.
    public func number(_ path: Path) throws(Problem) -> Double? {
        guard let first = path.top.map({ fields[$0.index] }) ?? root[path.keys[0]] else { return nil }
        var node = first
        for (k, key) in path.keys.enumerated().dropFirst() {
            if node.isNull { return nil }
            guard node.kind == .object else { throw .field("$." + path.keys[..<k].joined(separator: ".") + ": expected an object") }
            guard let next = node[key] else { return nil }
            node = next
        }
        if node.isNull { return nil }
        guard let v = node.double else { throw .field("$." + path.keys.joined(separator: ".") + ": expected a number") }
        return v
    }

    /// The run, cell and repetition the line records.
    public var key: RecordKey { RecordKey(runID: runID, cellID: cellID, repetition: repetition) }

    /// `" · voice"`: what compare and report append to the environment of a cell whose
    /// workload is not the upload (docs/WORKLOADS.md); empty for the upload and older records.
    public var workloadSuffix: String {
        workloadName.map { $0 == WorkloadSpec.upload.name ? "" : " · " + $0 } ?? ""
    }

    /// `" + background saturating"`: what compare and report append to the environment
    /// of a cell that ran with a competing flow (`Record.CrossTraffic.scenarioSuffix`).
    public var crossTrafficSuffix: String {
        Record.CrossTraffic(serviceClass: crossTraffic.serviceClass, offeredMbps: crossTraffic.offeredMbps).scenarioSuffix
    }

    static func object(_ v: JSONTape.Node?, _ path: String) throws(Problem) -> JSONTape.Node {
        guard let v else { throw .field("\(path): missing") }
        guard v.kind == .object else { throw .field("\(path): " + (v.isNull ? "null where an object is required" : "expected an object")) }
        return v
    }

    static func string(_ v: JSONTape.Node?, _ path: String) throws(Problem) -> String {
        guard let v else { throw .field("\(path): missing") }
        guard let s = v.string else { throw .field("\(path): " + (v.isNull ? "null where a string is required" : "expected a string")) }
        return s
    }

    static func int(_ v: JSONTape.Node?, _ path: String) throws(Problem) -> Int {
        guard let v else { throw .field("\(path): missing") }
        guard let n = v.int else { throw .field("\(path): " + (v.isNull ? "null where an integer is required" : "expected an integer")) }
        return n
    }

    /// An optional key: absent or null is nil; present with another type is an error.
    static func optional<T>(_ v: JSONTape.Node?, _ path: String, _ read: (JSONTape.Node) -> T?) throws(Problem) -> T? {
        guard let v, !v.isNull else { return nil }
        guard let x = read(v) else { throw .field("\(path): expected \(T.self == String.self ? "a string" : "a number")") }
        return x
    }
}
