import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import Testing

@testable import PeerBenchAnalysis
@testable import PeerBenchCore

/// `compare --measured`'s arithmetic against values computed by hand: type-7 quartiles,
/// which emulated records join which row, inside, ratio, and the summary counts.
@Suite struct MeasuredComparisonTests {
    @Test func quartilesInterpolateBetweenOrderStatisticsAsNumpyDoes() throws {
        // numpy.percentile([1, 2, 3, 4], [25, 50, 75]) = [1.75, 2.5, 3.25]
        #expect(Quartiles([4, 1, 3, 2]) == Quartiles(n: 4, q1: 1.75, median: 2.5, q3: 3.25))
        // h = (n - 1) p on [10, 20, 40, 80, 160, 320]: q1 at 1.25 -> 20 + 0.25 * 20, median at 2.5 -> 40 + 0.5 * 40, q3 at 3.75 -> 80 + 0.75 * 80.
        #expect(Quartiles([320, 10, 160, 20, 80, 40]) == Quartiles(n: 6, q1: 25, median: 60, q3: 140))
        #expect(Quartiles([1, 2, 3, 4, 10]) == Quartiles(n: 5, q1: 2, median: 3, q3: 4))
        #expect(Quartiles([7]) == Quartiles(n: 1, q1: 7, median: 7, q3: 7))
        #expect(Quartiles([]) == nil)
        #expect(Quartiles([1, 2, 3, 4])!.contains(3.25) && !Quartiles([1, 2, 3, 4])!.contains(3.2500001))
    }

    @Test func distancesMeetOnAMillimetreGridAndAbsurdOnesDoNotTrap() {
        #expect(MeasuredComparison.millimetres(5) == MeasuredComparison.millimetres(5.0000001))
        #expect(MeasuredComparison.millimetres(5) != MeasuredComparison.millimetres(5.002))
        #expect(MeasuredComparison.millimetres(1e300) == MeasuredComparison.millimetres(-.infinity))
    }

    static func record(
        cell: String, rep: Int = 1, distance: Double, payload: (Int, Int)? = (100, 128), status: String = "ok",
        rtt: (mean: Double, sd: Double)?, method: String? = nil, span: Double?? = nil, throughput: Double? = nil
    ) -> String {
        var o = JSONObject()
        o["schema"] = "peerbench.record/4"
        o["run_id"] = "r1"
        o["cell_id"] = .string(cell)
        o["repetition"] = JSONValue(rep)
        o["transport"] = ["plugin": "tcp", "label": "tcp", "options": [:]]
        o["environment"] = "forest"
        o["distance_m"] = .number(distance)
        o["distance_label"] = .string("\(distance)")
        var p: JSONValue = .null
        if let payload { p = ["count": JSONValue(payload.0), "size": JSONValue(payload.1)] }
        o["payload"] = p
        o["status"] = .string(status)
        var r: JSONValue = .null
        if let rtt { r = ["count": 1000, "mean": .number(rtt.mean), "stddev": .number(rtt.sd)] }
        o["rtt_ms"] = r
        o["throughput_mbps"] = JSONValue(throughput)
        if let method { o["rtt_method"] = .string(method) }
        // span: nil = key absent (a record before /4), .some(nil) = null, a value otherwise.
        if let span { o["receiver_span_mbps"] = JSONValue(span) }
        return JSONValue.object(o).compactText
    }

    /// Writes the CSVs and a run folder and compares them as the command does.
    /// `records`: the run's lines; nil = the hand-computed case below.
    static func comparison(records: [String]? = nil) throws -> MeasuredComparison {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("measured-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true)
        let rtt = """
            Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms),distance_m
            TCP,Forest,1,1,4,1
            TCP,Forest,1,2,3,1
            TCP,Forest,10,3,2,10
            TCP,Forest,10,4,1,10
            TCP,Field,1,100,10,1

            """
        let transfer =
            "Transport Protocol,Scenario,Distance (m),Transfer Speed (Mbps),Package Loss (%),Package Size (Bytes),Number of Packages\n"
            + [10, 20, 40, 80, 160, 320].map { "TCP,Forest,1,\($0),0,128,100\n" }.joined()
        try Data(rtt.utf8).write(to: URL(fileURLWithPath: dir + "/rtt.csv"))
        try Data(transfer.utf8).write(to: URL(fileURLWithPath: dir + "/transfer.csv"))
        let lines =
            records ?? [
                record(cell: "a", distance: 1, rtt: (3.0, 0.5), method: "pipelined", span: 150),
                // At 10 m: in the RTT rows (the RTT tests cover 1 and 10 m), in no transfer row (transfers only at 1 m).
                record(cell: "a", rep: 2, distance: 10, rtt: (3.5, 0.6), method: "pipelined", span: 999),
                // A failed attempt, then its rerun: the rerun counts. No receiver_span_mbps key: throughput stands in.
                record(cell: "a", rep: 3, distance: 1, status: "failed", rtt: (100, 100), span: 1),
                record(cell: "a", rep: 3, distance: 1, status: "partial", rtt: (2.0, 0.7), throughput: 200),
                // 5 m is in no measured row; a payload the transfers do not have, without RTT.
                record(cell: "b", distance: 5, rtt: (50, 5), method: "pipelined", span: 7),
                record(cell: "c", distance: 1, payload: (1000, 4096), rtt: nil, method: "pipelined", span: 50),
                record(cell: "d", distance: 1, status: "timeout", rtt: (1, 1), span: 1),
            ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/run/records.jsonl"))
        return try MeasuredComparison.load(
            runDirectories: [dir + "/run"], measuredFiles: [dir + "/rtt.csv", dir + "/transfer.csv"],
            mapping: .fieldStudy2025)
    }

    /// A matrix with `rttPayloads` writes cells without RTT (`rtt_ms`, `rtt_method` null):
    /// their transfers count, the RTT rows and the method note take the probed cells only.
    @Test func cellsThatSkippedTheProbesCountForTransferOnly() throws {
        let doc = MeasuredDocument(
            try Self.comparison(records: [
                Self.record(cell: "a", distance: 1, rtt: (3.0, 0.5), method: "pipelined", span: 150),
                Self.record(cell: "a", rep: 2, distance: 1, rtt: nil, span: 200),
                Self.record(cell: "a", rep: 3, distance: 1, rtt: nil, span: 250),
            ]))
        let mean = doc.tables[0].rows[0], jitter = doc.tables[1].rows[0], transfer = doc.tables[2].rows[0]
        #expect(mean.place == "forest" && mean.emulated == side(1, 3, 3, 3))
        #expect(jitter.emulated == side(1, 0.5, 0.5, 0.5))
        #expect(transfer.place == "forest" && transfer.distanceM == 1 && transfer.emulated == side(3, 175, 200, 225))
        #expect(doc.rttMethods == [.init(method: "pipelined", records: 1)])
        #expect(!doc.notes.contains { $0.hasPrefix("the study used 1 000 pipelined RTT probes") }, "\(doc.notes)")
    }

    @Test func rowsInsideAndRatioMatchTheHandComputedCase() throws {
        let doc = MeasuredDocument(try Self.comparison())
        #expect(doc.tables.map(\.metric) == [.rttMeanMs, .rttJitterMs, .transferMbps, .transferByPayloadMbps])
        let mean = doc.tables[0]
        #expect(mean.rows.map(\.place) == ["forest", "free-field"], "order of the measured files")
        // Measured [1, 2, 3, 4]: 1.75 / 2.5 / 3.25. Emulated [3.0, 3.5, 2.0]: 2.5 / 3.0 / 3.25 -> inside, 3.0 / 2.5.
        let forest = mean.rows[0]
        #expect(forest.measured == side(4, 1.75, 2.5, 3.25) && forest.emulated == side(3, 2.5, 3.0, 3.25))
        #expect(forest.inside == true && abs(forest.ratio! - 1.2) < 1e-12)
        // The field has measurements only: no verdict, not counted in "of n".
        #expect(mean.rows[1].measured == side(1, 100, 100, 100) && mean.rows[1].emulated.n == 0 && mean.rows[1].emulated.median == nil)
        #expect(mean.rows[1].inside == nil && mean.rows[1].ratio == nil)
        #expect(mean.inside == 1 && mean.compared == 1)
        // Jitter: measured [4, 3, 2, 1] -> 1.75 / 2.5 / 3.25; emulated SD [0.5, 0.6, 0.7] -> 0.55 / 0.6 / 0.65, below.
        let jitter = doc.tables[1].rows[0]
        #expect(jitter.measured == side(4, 1.75, 2.5, 3.25))
        #expect(jitter.emulated.n == 3 && abs(jitter.emulated.q1! - 0.55) < 1e-12 && abs(jitter.emulated.median! - 0.6) < 1e-12)
        #expect(jitter.inside == false && abs(jitter.ratio! - 0.24) < 1e-12 && doc.tables[1].inside == 0 && doc.tables[1].compared == 1)
        // Transfer forest 1 m: measured [10 ... 320] -> 25 / 60 / 140; emulated [150, 200 (throughput)] -> 162.5 / 175 / 187.5.
        let t = doc.tables[2].rows[0]
        #expect(t.place == "forest" && t.distanceM == 1 && t.count == nil)
        #expect(t.measured == side(6, 25, 60, 140) && t.emulated == side(2, 162.5, 175, 187.5))
        #expect(t.inside == false && abs(t.ratio! - 175.0 / 60) < 1e-12 && t.emulatedFromThroughput == 1)
        let p = doc.tables[3].rows[0]
        #expect(p.place == nil && p.count == 100 && p.size == 128 && p.measured == side(6, 25, 60, 140) && p.emulated == side(2, 162.5, 175, 187.5))
        #expect(doc.rttMethods == [.init(method: "none", records: 1), .init(method: "pipelined", records: 2)])
        #expect(doc.unmatchedRecords == 2 && doc.notCountedRecords == 1)
        #expect(
            doc.notes == [
                "the study used 1 000 pipelined RTT probes; of the 3 emulated records in the RTT rows, 1 did not (rtt_method: 1 none (no rtt_method: ping-pong, written before peerbench.record/4)); matrices/field-study-2025.json runs them from the app's send loop",
                "1 emulated transfer value is throughput_mbps, not the study's receiver data rate: its record has no receiver_span_mbps (written before peerbench.record/4)",
                "2 emulated records (ok or partial) match no measured row: a transport, place, distance or payload the measured files do not have",
                "1 emulated record is not counted: status neither ok nor partial",
            ])
    }

    @Test func theJSONDocumentKeepsEveryKeyInItsDeclaredOrder() throws {
        let doc = MeasuredDocument(try Self.comparison())
        let json = try JSONCoding.encode(doc)
        #expect(
            json.objectValue?.keys == [
                "schema", "quartile_method", "runs", "measured_files", "mapping", "rtt_methods", "tables",
                "unmatched_records", "not_counted_records", "notes", "warnings",
            ])
        let row = try #require(json["tables"]?.arrayValue?[0]["rows"]?.arrayValue?[1].objectValue)
        #expect(
            row.keys == ["transport", "place", "distance_m", "count", "size", "measured", "emulated", "inside", "ratio", "emulated_from_throughput"])
        #expect(row["inside"] == .null && row["emulated"]?["median"] == .null, "null, not left out")
        #expect(try JSONCoding.decode(MeasuredDocument.self, from: json) == doc, "reads back")
    }

    func side(_ n: Int, _ q1: Double, _ median: Double, _ q3: Double) -> MeasuredDocument.Side {
        var s = MeasuredDocument.Side([])
        s.n = n
        s.q1 = q1
        s.median = median
        s.q3 = q3
        return s
    }
}
