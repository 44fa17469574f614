import Foundation
import Testing

@testable import PeerBenchAnalysis
@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

/// The analysis reads journal lines as tokens (`JSONTape`, `RecordLine`), not as decoded
/// `Record`s: what it reads must be what the typed record says, and its refusals must
/// name the JSON path, as the decoder's did.
@Suite struct RecordLineTests {
    static func line(_ r: Record) -> ArraySlice<UInt8> { Array(r.json.compactText.utf8)[...] }

    /// A record with text that needs CSV quoting and JSON escapes, figures in every metric.
    static func busyRecord() -> Record {
        var r = Fixtures.record("c1", 3, status: .partial, runID: "run, \"quoted\"", label: "tcp\nnodelay", environment: "forest", mbps: 87.125)
        r.error = "line one\r\nline \"two\", é"
        r.connectMs = 2.75
        r.rttMs = Record.RTTStats(count: 3, min: 1, mean: 1.5, p50: 1.25, p90: 2, p99: 2.5, max: 3, stddev: 0.5)
        r.jitterMs = Record.Jitter(ipdvMean: 0.125, rfc3550: 0.5)
        r.extra = JSONObject(["uwb": ["distance_availability": 0.75, "distance_error_m": ["p95": 0.25]]])
        return r
    }

    /// Each column's value looked up by its path in the record's JSON tree, the leaf
    /// written by `RecordsCSV.field`: what the one-pass walk over the tokens must give.
    static func expectedRow(_ r: Record) -> String {
        let json = r.json
        return RecordsCSV.columnPaths.map { path in
            var v: JSONValue? = json
            for key in path { v = v?[key] }
            return RecordsCSV.field(v ?? .null)
        }.joined(separator: ",")
    }

    @Test func theCSVRowFromTokensIsTheTypedRecordsRow() throws {
        for r in [Self.busyRecord(), Fixtures.record("c2"), Record.template] {
            let line = try RecordLine(Self.line(r))
            #expect(RecordsCSV.row(line.root) == Self.expectedRow(r))
            #expect(RecordsCSV.row(r) == Self.expectedRow(r))
        }
        #expect(Self.expectedRow(Self.busyRecord()).contains("\"line one\r\nline \"\"two\"\", é\""), "quoted, quotes doubled")
    }

    @Test func fieldsAndMetricsAreTheTypedRecordsValues() throws {
        let r = Self.busyRecord()
        let line = try RecordLine(Self.line(r))
        #expect(line.runID == r.runID && line.cellID == r.cellID && line.repetition == 3)
        #expect(line.status == .partial && line.error == r.error && line.label == "tcp\nnodelay")
        #expect(line.environment == "forest" && line.distanceLabel == r.distanceLabel && line.linkMode == r.link.mode.rawValue)
        for m in ComparisonMetric.allCases {
            #expect(try m.value(in: line) == m.value(in: r), "\(m)")
        }
        #expect(try ComparisonMetric.uwbErrorM.value(in: line) == 0.25)
        #expect(try ComparisonMetric.throughputMbps.value(in: line) == 87.125)
    }

    /// compare and report find a record by its key's digest, made from the line's raw
    /// bytes: it must be the decoded key's (escapes included), and keys that differ in
    /// any part, or only where one part ends and the next begins, must differ.
    @Test func theKeyDigestIsTheDecodedKeysAndTellsKeysApart() throws {
        for r in [Self.busyRecord(), Fixtures.record("c\u{e9}\"2", 4), Record.template] {
            let line = try RecordLine(Self.line(r))
            #expect(line.digest == RecordKey(runID: r.runID, cellID: r.cellID, repetition: r.repetition).digest)
            #expect(line.key.digest == line.digest && line.cellID == r.cellID)
        }
        let key = RecordKey(runID: "ab", cellID: "c", repetition: 1)
        let others = [
            RecordKey(runID: "a", cellID: "bc", repetition: 1), RecordKey(runID: "ab", cellID: "c", repetition: 2),
            RecordKey(runID: "ab", cellID: "d", repetition: 1), RecordKey(runID: "ab", cellID: "c\0", repetition: 1),
        ]
        for other in others { #expect(other.digest != key.digest, "\(other)") }
        // 100 000 keys of one run, every cell and repetition: no two digests alike.
        var seen = Set<RecordKey.Digest>()
        for cell in 0..<10_000 {
            for rep in 1...10 { seen.insert(RecordKey(runID: "run", cellID: String(cell, radix: 16), repetition: rep).digest) }
        }
        #expect(seen.count == 100_000)
    }

    @Test func refusalsNameTheJSONPath() throws {
        var o = try #require(JSONParser.parse(Self.line(Fixtures.record("c3"))).objectValue)
        func problem(_ edit: (inout JSONObject) -> Void) -> String {
            var copy = o
            edit(&copy)
            do {
                _ = try RecordLine(Array(JSONValue.object(copy).compactText.utf8)[...])
                return "accepted"
            } catch { return error.description }
        }
        #expect(problem { $0["status"] = nil } == "$.status: missing")
        #expect(problem { $0["status"] = "sideways" } == "$.status: unknown status \"sideways\"")
        #expect(problem { $0["repetition"] = "one" } == "$.repetition: expected an integer")
        #expect(problem { $0["transport"] = .null } == "$.transport: null where an object is required")
        #expect(problem { $0["rtt_ms"] = ["p50": "fast"] } == "accepted", "a metric is checked where it is read")
        #expect(problem { $0["schema"] = "peerbench.record/9" } == "schema \"peerbench.record/9\" is not \(Record.currentSchema)")
        o["rtt_ms"] = ["p50": "fast"]
        let line = try RecordLine(Array(JSONValue.object(o).compactText.utf8)[...])
        #expect(throws: RecordLine.Problem.self) { try ComparisonMetric.rttP50.value(in: line) }
        #expect(throws: RecordLine.Problem.self) { try RecordLine(Array(#"{"schema":"peerbench.record/5","run_id":"#.utf8)[...]) }
    }

    /// The tape's number reading (an exact fast path for short numbers) against the
    /// standard library's correctly rounded conversion, over numbers of every shape.
    @Test func numbersReadAsTheStandardLibraryReadsThem() throws {
        var rng = SystemRandomNumberGenerator()
        var texts = [
            "0", "-0", "1", "-1", "0.1", "0.000123", "123456789012345678", "9007199254740993", "1e-7", "2.5E+3",
            "17976931348623157e292", "4.9e-324", "0.30000000000000004", "123.45678901234567", "1234567890123456789012",
        ]
        for _ in 0..<2000 {
            let x = Double.random(in: -1e6...1e6, using: &rng) * pow(10, Double(Int.random(in: -12...12, using: &rng)))
            texts.append("\(x)")
            texts.append(String(format: "%.\(Int.random(in: 0...9, using: &rng))f", x))
        }
        for t in texts {
            let read = try JSONTape(parsing: Array(t.utf8)).root.double
            #expect(read == Double(t), "\(t)")
        }
    }

    @Test func keysAreFoundEscapedOrNotAndDuplicatesRefused() throws {
        let tape = try JSONTape(parsing: Array(#"{"a\u0062":1,"c":{"d":[true,null,"x\"y"]}}"#.utf8))
        #expect(tape.root["ab"]?.double == 1)
        #expect(tape.root["c"]?["d"]?.elements.map(\.kind) == [.true, .null, .string])
        #expect(tape.root["c"]?["d"]?.elements.last?.string == "x\"y")
        #expect(tape.root["zz"] == nil)
        #expect(throws: JSONSyntaxError.self) { try JSONTape(parsing: Array(#"{"ab":1,"a\u0062":2}"#.utf8)) }
    }
}
