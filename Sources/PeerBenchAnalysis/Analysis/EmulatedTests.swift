import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// The emulated side of `compare --measured`: per record of the runs only the figures the
/// field study also measured, read from each journal line's JSON object by key, so records
/// written before `peerbench.record/4` (no `rtt_method`, no `receiver_span_mbps`) and
/// after it read alike. The latest record of each run, cell and repetition counts, as in
/// `compare`; only `ok` and `partial` records give values (docs/COMPARE.md).
struct EmulatedTests: Sendable {
    struct Test: Sendable {
        var transport: String
        var place: String
        var distanceM: Double?
        var count: Int?
        var size: Int?
        var rttMeanMs: Double?
        var rttStddevMs: Double?
        /// The study's receiver data rate; with `fromThroughput`, PeerBench's `throughput_mbps`
        /// stands in (a record without the key `receiver_span_mbps`).
        var transferMbps: Double?
        var fromThroughput = false
        /// `rtt_method` as written; nil when the key is absent or null.
        var rttMethod: String?
        var counted: Bool
    }

    private(set) var tests: [Test] = []
    private var index: [String: Int] = [:]
    var warnings: [String] = []

    /// Records whose status is neither `ok` nor `partial` (latest attempts only).
    var notCounted: Int { tests.count(where: { !$0.counted }) }

    static func load(runDirectories dirs: [String]) throws(InputError) -> EmulatedTests {
        var out = EmulatedTests()
        for dir in dirs { try out.addJournal(dir: dir) }
        if out.tests.isEmpty { throw InputError(source: dirs.joined(separator: ", "), "no records to compare") }
        return out
    }

    /// Streams `DIR/records.jsonl`. A torn last line is skipped with a warning; an
    /// unreadable line before it is an error; a line that is JSON but not a record (or
    /// lacks a key this comparison needs) is skipped with a warning naming it.
    mutating func addJournal(dir: String) throws(InputError) {
        let journal = dir + "/records.jsonl"
        var torn: (line: Int, error: String)?
        var skipped: [String] = []
        let opened = try JournalLines.forEach(path: journal) { (bytes, line) throws(InputError) in
            if let t = torn { throw InputError(source: "\(journal) line \(t.line)", "not valid JSON (\(t.error)) and not the last line") }
            let value: JSONValue
            do { value = try JSONParser.parse(Array(bytes)) } catch {
                torn = (line, "\(error)")
                return
            }
            switch Self.test(value) {
            case .success(let (key, test)):
                if let i = index[key] {
                    tests[i] = test
                } else {
                    index[key] = tests.count
                    tests.append(test)
                }
            case .failure(let problem):
                skipped.append("\(journal) line \(line): \(problem.message); skipped")
            }
        }
        guard opened else { throw InputError(source: dir, "no records.jsonl here (is it a folder written by peerbench run --out?)") }
        warnings += skipped
        if let torn { warnings.append("\(journal): skipped a torn last line (line \(torn.line))") }
    }

    struct Problem: Error { var message: String }

    /// One line's figures with its run|cell|repetition key, or why it is not a record.
    static func test(_ json: JSONValue) -> Result<(String, Test), Problem> {
        let schema = json[Record.CodingKeys.schema.rawValue]?.stringValue
        guard let schema, schema.hasPrefix("peerbench.record/") else {
            return .failure(Problem(message: "not a peerbench.record line (schema \(schema.map { "\"\($0)\"" } ?? "missing"))"))
        }
        typealias Key = Record.CodingKeys
        typealias RTTKey = Record.RTTStats.CodingKeys
        typealias PayloadKey = Payload.CodingKeys
        guard let run = json[Key.runID.rawValue]?.stringValue, let cell = json[Key.cellID.rawValue]?.stringValue,
            let rep = json[Key.repetition.rawValue]?.intValue,
            let label = json[Key.transport.rawValue]?[Record.Transport.CodingKeys.label.rawValue]?.stringValue,
            let environment = json[Key.environment.rawValue]?.stringValue, let status = json[Key.status.rawValue]?.stringValue
        else {
            return .failure(Problem(message: "lacks one of run_id, cell_id, repetition, transport.label, environment, status"))
        }
        let rtt = json[Key.rttMs.rawValue]
        let payload = json[Key.payload.rawValue]
        var t = Test(
            transport: label, place: environment, distanceM: json[Key.distanceM.rawValue]?.doubleValue,
            count: payload?[PayloadKey.count.rawValue]?.intValue, size: payload?[PayloadKey.size.rawValue]?.intValue,
            rttMeanMs: rtt?[RTTKey.mean.rawValue]?.doubleValue, rttStddevMs: rtt?[RTTKey.stddev.rawValue]?.doubleValue,
            rttMethod: json[Key.rttMethod.rawValue]?.stringValue,
            counted: status == CellStatus.ok.rawValue || status == CellStatus.partial.rawValue)
        if let span = json[Key.receiverSpanMbps.rawValue] {
            // Present: the study's rate, or null where it does not apply (no fallback then).
            t.transferMbps = span.doubleValue
        } else if let throughput = json[Key.throughputMbps.rawValue]?.doubleValue {
            t.transferMbps = throughput
            t.fromThroughput = true
        }
        return .success(("\(run)|\(cell)|\(rep)", t))
    }
}
