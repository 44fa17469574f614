import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchCore
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
                if let i = index[key] { tests[i] = test } else { index[key] = tests.count; tests.append(test) }
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
        guard let schema = json["schema"]?.stringValue, schema.hasPrefix("peerbench.record/") else {
            return .failure(Problem(message: "not a peerbench.record line (schema \(json["schema"]?.stringValue.map { "\"\($0)\"" } ?? "missing"))"))
        }
        guard let run = json["run_id"]?.stringValue, let cell = json["cell_id"]?.stringValue, let rep = json["repetition"]?.intValue,
              let label = json["transport"]?["label"]?.stringValue, let environment = json["environment"]?.stringValue,
              let status = json["status"]?.stringValue
        else {
            return .failure(Problem(message: "lacks one of run_id, cell_id, repetition, transport.label, environment, status"))
        }
        let rtt = json["rtt_ms"]
        let payload = json["payload"]
        var t = Test(transport: label, place: environment, distanceM: json["distance_m"]?.doubleValue,
                     count: payload?["count"]?.intValue, size: payload?["size"]?.intValue,
                     rttMeanMs: rtt?["mean"]?.doubleValue, rttStddevMs: rtt?["stddev"]?.doubleValue,
                     rttMethod: json["rtt_method"]?.stringValue, counted: status == "ok" || status == "partial")
        if let span = json["receiver_span_mbps"] {
            // Present: the study's rate, or null where it does not apply (no fallback then).
            t.transferMbps = span.doubleValue
        } else if let throughput = json["throughput_mbps"]?.doubleValue {
            t.transferMbps = throughput
            t.fromThroughput = true
        }
        return .success(("\(run)|\(cell)|\(rep)", t))
    }
}
