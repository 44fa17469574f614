import PeerBenchJSON
import PeerBenchPlugin

#if canImport(Glibc)
    import Glibc
#endif

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

    public let schema: String
    public let runID: String
    /// `cell_id`, made from the line when asked (compare needs only `digest`).
    public var cellID: String { tape.string(at: cellIDIndex)! }
    private let cellIDIndex: Int
    /// The run, cell and repetition as 128 bits, from the line's bytes (`RecordKey.Digest`).
    public let digest: RecordKey.Digest
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

        /// The record's key of each case, in case order (`Record.CodingKeys` spells them).
        static let keys: [String] =
            ([
                .schema, .runID, .cellID, .repetition, .status, .error, .environment, .distanceLabel, .distanceM,
                .payload, .transport, .link, .scenario, .crossTraffic, .throughputMbps, .rttMs, .jitterMs,
                .delivery, .connectMs, .extra, .workload, .requestResponseMs, .frameDelayMs, .frames,
            ]
            as [Record.CodingKeys]).map(\.rawValue)
        var key: String { Self.keys[rawValue] }
        /// `$.run_id`: the field's JSON path, for errors.
        var path: String { "$." + key }
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

    /// The line's tokens; every value below is read by its token's index (`JSONTape`'s
    /// reading by index), so reading a record counts no reference per step.
    let tape: JSONTape
    /// The members found: their values' token indices by `Field`, -1 where absent.
    private let fields: [Int]

    /// The record's top-level object.
    public var root: JSONTape.Node { tape.node(at: JSONTape.rootIndex) }

    public init(_ bytes: ArraySlice<UInt8>) throws(Problem) {
        let tape: JSONTape
        do { tape = try JSONTape(parsing: bytes) } catch { throw .syntax(error) }
        guard tape.kind(at: JSONTape.rootIndex) == .object else { throw .notAnObject }
        var fields = [Int](repeating: -1, count: Field.allCases.count)
        tape.forEachMember(of: JSONTape.rootIndex) { key, value in
            if let f = Field.of(key) { fields[f.index] = value }
        }
        self.tape = tape
        self.fields = fields
        let v = Values(tape: tape)
        func field(_ f: Field) -> Int? { fields[f.index] < 0 ? nil : fields[f.index] }
        guard let schema = field(.schema).flatMap(tape.string(at:)), Record.readableSchemas.contains(schema) else {
            throw .schema(field(.schema).flatMap(tape.string(at:)))
        }
        self.schema = schema
        runID = try v.string(field(.runID), Field.runID.path)
        cellIDIndex = try v.stringIndex(field(.cellID), Field.cellID.path)
        repetition = try v.int(field(.repetition), Field.repetition.path)
        var run = runID
        digest = run.withUTF8 { [repetition, cellIDIndex] r in
            tape.withUTF8(ofStringAt: cellIDIndex) { c in RecordKey.digest(runID: r, cellID: c, repetition: repetition) }!
        }
        let statusText = try v.string(field(.status), Field.status.path)
        guard let status = CellStatus(rawValue: statusText) else { throw .field("\(Field.status.path): unknown status \"\(statusText)\"") }
        self.status = status
        error = try v.optional(field(.error), Field.error.path, tape.string(at:))
        environment = try v.string(field(.environment), Field.environment.path)
        distanceLabel = try v.string(field(.distanceLabel), Field.distanceLabel.path)
        distanceM = try v.optional(field(.distanceM), Field.distanceM.path, tape.double(at:))
        // The nested members read, by their types' `CodingKeys`.
        func member(_ key: some CodingKey, of object: Int, in f: Field) -> Member {
            Member(value: tape.member(key.stringValue, of: object), field: f, key: key.stringValue)
        }
        if let p = try v.presentObject(field(.payload), Field.payload.path) {
            let count = member(Payload.CodingKeys.count, of: p, in: .payload)
            let size = member(Payload.CodingKeys.size, of: p, in: .payload)
            payload = (try v.int(count.value, count.path), try v.int(size.value, size.path))
        } else {
            payload = nil
        }
        let label = member(Record.Transport.CodingKeys.label, of: try v.object(field(.transport), Field.transport.path), in: .transport)
        self.label = try v.string(label.value, label.path)
        let mode = member(Record.Link.CodingKeys.mode, of: try v.object(field(.link), Field.link.path), in: .link)
        linkMode = try v.string(mode.value, mode.path)
        if let s = try v.presentObject(field(.scenario), Field.scenario.path) {
            let name = member(Record.Scenario.CodingKeys.name, of: s, in: .scenario)
            let kind = member(Record.Scenario.CodingKeys.kind, of: s, in: .scenario)
            scenario = (try v.string(name.value, name.path), try v.string(kind.value, kind.path))
        } else {
            scenario = nil
        }
        if let w = try v.presentObject(field(.workload), Field.workload.path) {
            // `workload` is the matrix's entry as resolved (`WorkloadSpec.resolvedJSON`), keyed as the matrix spells it.
            workloadName = try v.string(tape.member("name", of: w), Field.workload.path + ".name")
        } else {
            workloadName = nil
        }
        if let c = try v.presentObject(field(.crossTraffic), Field.crossTraffic.path) {
            let serviceClass = member(Record.CrossTraffic.CodingKeys.serviceClass, of: c, in: .crossTraffic)
            let offered = member(Record.CrossTraffic.CodingKeys.offeredMbps, of: c, in: .crossTraffic)
            crossTraffic = (
                try v.optional(serviceClass.value, serviceClass.path, tape.string(at:)),
                try v.optional(offered.value, offered.path, tape.double(at:))
            )
        } else {
            crossTraffic = (nil, nil)
        }
    }

    /// A nested member read: its value's token index (nil: absent), and where it is, for errors.
    struct Member {
        let value: Int?
        let field: Field
        let key: String
        /// `$.payload.count`; made only for an error.
        var path: String { field.path + "." + key }
    }

    /// Paths of keys into a record (`["rtt_ms", "p50"]`), read together: compare's
    /// metrics. Resolved against `Field` once, where they are made, and stored flat (the
    /// keys' bytes one after another), so reading a row of them counts no reference per
    /// key: paths as arrays of arrays counted four a path, a twentieth of compare's time.
    public struct Paths: Sendable {
        /// Each path's keys, for errors.
        let names: [[String]]
        /// Every key's UTF-8 bytes, one after another.
        let bytes: [UInt8]
        /// Each key's bytes in `bytes`.
        let keys: [Range<Int>]
        /// Each path's keys in `keys`, and its first key as a `Field` (-1: not one).
        let paths: [(keys: Range<Int>, top: Int)]

        public init(_ names: [[String]]) {
            precondition(names.allSatisfy { !$0.isEmpty }, "a record path names at least one key")
            self.names = names
            var bytes: [UInt8] = [], keys: [Range<Int>] = [], paths: [(keys: Range<Int>, top: Int)] = []
            for path in names {
                let first = keys.count
                for key in path {
                    keys.append(bytes.count..<bytes.count + key.utf8.count)
                    bytes += key.utf8
                }
                paths.append((first..<keys.count, Field(key: path[0])?.index ?? -1))
            }
            self.bytes = bytes
            self.keys = keys
            self.paths = paths
        }

        /// `body` with the three arrays' storage, borrowed once for a whole row of reads.
        func borrowed<R>(
            _ body: (
                UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Range<Int>>,
                UnsafeBufferPointer<(keys: Range<Int>, top: Int)>
            ) throws(Problem) -> R
        ) throws(Problem) -> R {
            try bytes.withUnsafeBufferPointer { (b) throws(Problem) -> R in
                try keys.withUnsafeBufferPointer { (k) throws(Problem) -> R in
                    try paths.withUnsafeBufferPointer { (p) throws(Problem) -> R in try body(b, k, p) }
                }
            }
        }
    }

    /// The numbers at `paths`, in order, NaN where the record has none (a key on the way
    /// absent or null); an error naming the JSON path where a value is there but not a
    /// number, or a key on the way is not an object.
    public func numbers(_ paths: Paths) throws(Problem) -> [Double] {
        try paths.borrowed { (bytes, keys, ps) throws(Problem) -> [Double] in
            var out: [Double] = []
            out.reserveCapacity(ps.count)
            for p in ps.indices { out.append(try number(ps[p], bytes, keys, names: paths, p) ?? .nan) }
            return out
        }
    }

    /// The number at path `k` of `paths` alone (as `numbers(paths)[k]`, nil for NaN).
    public func number(_ k: Int, of paths: Paths) throws(Problem) -> Double? {
        try paths.borrowed { (bytes, keys, ps) throws(Problem) -> Double? in try number(ps[k], bytes, keys, names: paths, k) }
    }

    private func number(
        _ path: (keys: Range<Int>, top: Int), _ bytes: UnsafeBufferPointer<UInt8>, _ keys: UnsafeBufferPointer<Range<Int>>,
        names paths: Paths, _ p: Int
    ) throws(Problem) -> Double? {
        func key(_ k: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[keys[k]]) }
        var node = path.top >= 0 ? fields[path.top] : tape.member(key(path.keys.lowerBound), of: JSONTape.rootIndex) ?? -1
        guard node >= 0 else { return nil }
        for k in path.keys.dropFirst() {
            switch tape.kind(at: node) {
            case .null: return nil
            case .object: break
            default: throw .field("$." + paths.names[p][..<(k - path.keys.lowerBound)].joined(separator: ".") + ": expected an object")
            }
            guard let next = tape.member(key(k), of: node) else { return nil }
            node = next
        }
        if tape.kind(at: node) == .null { return nil }
        guard let v = tape.double(at: node) else { throw .field("$." + paths.names[p].joined(separator: ".") + ": expected a number") }
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

    /// The checks of a member's type, by token index, with the JSON path an error names.
    struct Values {
        let tape: JSONTape

        func object(_ v: Int?, _ path: @autoclosure () -> String) throws(Problem) -> Int {
            guard let v else { throw .field("\(path()): missing") }
            switch tape.kind(at: v) {
            case .object: return v
            case .null: throw .field("\(path()): null where an object is required")
            default: throw .field("\(path()): expected an object")
            }
        }

        /// An optional object: absent or null is nil; present with another type is an error.
        func presentObject(_ v: Int?, _ path: @autoclosure () -> String) throws(Problem) -> Int? {
            guard let v, tape.kind(at: v) != .null else { return nil }
            guard tape.kind(at: v) == .object else { throw .field("\(path()): expected an object") }
            return v
        }

        /// A string member, checked but not made.
        func stringIndex(_ v: Int?, _ path: @autoclosure () -> String) throws(Problem) -> Int {
            guard let v else { throw .field("\(path()): missing") }
            guard tape.kind(at: v) == .string else {
                throw .field("\(path()): " + (tape.kind(at: v) == .null ? "null where a string is required" : "expected a string"))
            }
            return v
        }

        func string(_ v: Int?, _ path: @autoclosure () -> String) throws(Problem) -> String {
            tape.string(at: try stringIndex(v, path()))!
        }

        func int(_ v: Int?, _ path: @autoclosure () -> String) throws(Problem) -> Int {
            guard let v else { throw .field("\(path()): missing") }
            guard let n = tape.int(at: v) else {
                throw .field("\(path()): " + (tape.kind(at: v) == .null ? "null where an integer is required" : "expected an integer"))
            }
            return n
        }

        /// An optional key: absent or null is nil; present with another type is an error.
        func optional<T>(_ v: Int?, _ path: @autoclosure () -> String, _ read: (Int) -> T?) throws(Problem) -> T? {
            guard let v, tape.kind(at: v) != .null else { return nil }
            guard let x = read(v) else { throw .field("\(path()): expected \(T.self == String.self ? "a string" : "a number")") }
            return x
        }
    }
}
