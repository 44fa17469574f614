import Foundation
import Testing

@testable import PeerBenchAnalysis
@testable import PeerBenchCore

/// The report's condensed data: what survives from the records and samples, and how exactly.
@Suite struct ReportDataTests {
    static func record(
        cell: String, rep: Int, label: String, status: String = "ok", tput: Double? = nil,
        env: String = "forest", dist: String = "10"
    ) -> String {
        let t = tput.map { String($0) } ?? "null"
        return """
            {"schema":"peerbench.record/1","run_id":"r1","cell_id":"\(cell)","repetition":\(rep),"seed":1,\
            "transport":{"plugin":"tcp","label":"\(label)","options":{}},"environment":"\(env)","distance_m":10,"distance_label":"\(dist)",\
            "payload":{"count":100,"size":128},"link":{"mode":"emulated"},"status":"\(status)","error":\(status == "ok" ? "null" : "\"boom\""),\
            "started_at":"2026-11-23T00:00:00.000Z","connect_ms":1.5,"bulk_seconds":0.1,"total_seconds":1,\
            "rtt_ms":{"count":2,"min":1.0,"mean":2.0,"p50":2.0,"p90":3.0,"p99":3.0,"max":3.0,"stddev":1.0},\
            "jitter_ms":{"ipdv_mean":0.25,"rfc3550":null},"throughput_mbps":\(t),"delivery":{"sent_messages":100,"received_messages":100,\
            "sent_bytes":12800,"received_bytes":12800,"loss_ratio":0,"reordered":0,"duplicated":0},"extra":{}}
            """
    }

    static func folder(_ lines: [String], samples: [String]? = nil) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("report-data-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/records.jsonl", atomically: true, encoding: .utf8)
        if let samples {
            try (samples.joined(separator: "\n") + "\n").write(toFile: dir + "/samples.jsonl", atomically: true, encoding: .utf8)
        }
        return dir
    }

    /// A --retry-failed rerun appends the cell again: the last record is the outcome, so
    /// the failure disappears from the list and the median uses the retry's value.
    @Test func theLastRecordOfACellCounts() throws {
        let dir = try Self.folder([
            Self.record(cell: "a", rep: 1, label: "tcp", tput: 10),
            Self.record(cell: "a", rep: 2, label: "tcp", status: "failed"),
            Self.record(cell: "a", rep: 3, label: "tcp", tput: 30),
            Self.record(cell: "a", rep: 2, label: "tcp", tput: 14),
        ])
        let data = try ReportInput.read([dir]).data
        #expect(data.cellCount == 3)
        #expect(data.finalFailures.isEmpty)
        let doc = try ComparisonDocument.load(runDirectories: [dir], alpha: 0.05)
        let m = try #require(doc.scenarios.first?.transports.first?.metrics["throughput_mbps"])
        #expect(m.n == 3)
        #expect(m.median == 14)
        #expect(doc.scenarios.first?.transports.first?.metrics["jitter_ms"]?.median == 0.25)
    }

    @Test func aFailureStaysListedWithItsError() throws {
        let dir = try Self.folder([Self.record(cell: "a", rep: 1, label: "tcp", status: "timeout")])
        let data = try ReportInput.read([dir]).data
        #expect(data.finalFailures.map(\.status) == ["timeout"])
        #expect(data.finalFailures.first?.error == "boom")
        #expect(data.finalFailures.first?.scenario == "forest · 10 m · 100x128 B")
    }

    /// Samples join their record by run, cell and repetition; samples of a failed cell
    /// and samples matching no record are left out of the distribution.
    @Test func samplesJoinByRunCellAndRepetition() throws {
        func line(_ cell: String, _ rep: Int, _ rtt: [Int]) -> String {
            #"{"schema":"peerbench.samples/1","run_id":"r1","cell_id":"\#(cell)","repetition":\#(rep),"rtt_ns":\#(rtt),"rtt_loaded_ns":null,"bulk_series":{"interval_ns":100000000,"bytes":[125000,250000],"datagrams":null},"ranging":null}"#
        }
        let dir = try Self.folder(
            [Self.record(cell: "a", rep: 1, label: "tcp", tput: 10), Self.record(cell: "b", rep: 1, label: "tcp", status: "failed")],
            samples: [line("a", 1, [2_000_000, 4_000_000]), line("b", 1, [90_000_000]), line("zz", 1, [50_000_000])])
        let data = try ReportInput.read([dir]).data
        #expect(data.runs.first?.samplesJoined == 1)
        #expect(data.rtt.values.map(\.total) == [2])
        #expect(data.warnings.contains { $0.contains("1 samples lines match no record") })
        // 125 000 bytes per 100 ms = 10 Mbit/s.
        #expect(data.series.map(\.mbps) == [[10, 20]])
    }

    /// The histogram's quantiles stay within its 2 % bucket width of the exact ones.
    @Test func rttHistogramQuantilesAreWithinTwoPercent() {
        var h = LogHistogram()
        let values = (1...1000).map { UInt64(1_000_000 + $0 * 9_000) }  // 1.009 ms ... 10 ms, uniform
        for v in values.shuffled() { h.add(v) }
        let cdf = h.cdf(points: 10)
        #expect(cdf.count == 10)
        for (k, point) in cdf.enumerated() {
            let exact = Double(values[(k + 1) * 100 - 1]) / 1e6
            #expect(abs(point.ms - exact) / exact < 0.02, "p=\(point.p): \(point.ms) vs \(exact)")
            #expect(point.p == Double(k + 1) / 10)
        }
    }

    /// Runs of different matrices in one report are pooled only with an explicit warning.
    @Test func mixedMatricesAreWarned() throws {
        let a = try Self.folder([Self.record(cell: "a", rep: 1, label: "tcp", tput: 1)])
        let b = try Self.folder([Self.record(cell: "b", rep: 1, label: "tcp", tput: 2)])
        try #"{"matrix_hash": "fnv1a64:aaaa", "cells_total": 1}"#.write(toFile: a + "/manifest.json", atomically: true, encoding: .utf8)
        try #"{"matrix_hash": "fnv1a64:bbbb", "cells_total": 3}"#.write(toFile: b + "/manifest.json", atomically: true, encoding: .utf8)
        let data = try ReportInput.read([a, b]).data
        #expect(data.warnings.contains { $0.hasPrefix("mixed runs: these folders ran 2 different matrices (fnv1a64:aaaa, fnv1a64:bbbb)") })
        #expect(data.warnings.contains("\(b): 2 of 3 cells have no record (run interrupted, or still running)"))
        #expect(!data.warnings.contains { $0.hasPrefix(a) })
    }

    @Test func anIncompleteRecordIsRefusedWithItsJSONPath() throws {
        let broken = Self.record(cell: "b", rep: 1, label: "tcp", tput: 1).replacingOccurrences(of: #""status":"ok","#, with: "")
        let dir = try Self.folder([
            Self.record(cell: "a", rep: 1, label: "tcp", tput: 1), broken,
            Self.record(cell: "c", rep: 1, label: "tcp", tput: 1),
        ])
        do {
            _ = try ReportInput.read([dir]).data
            Issue.record("an incomplete record was accepted")
        } catch {
            #expect(error.description == "\(dir)/records.jsonl line 2: not a \(Record.currentSchema) record: $.status: missing")
        }
    }

    @Test func unknownRecordSchemaIsRefusedWithFileAndLine() throws {
        let dir = try Self.folder([
            Self.record(cell: "a", rep: 1, label: "tcp", tput: 1),
            #"{"schema":"peerbench.record/9","run_id":"r1"}"#,
        ])
        #expect(throws: ReportError.self) { try ReportInput.read([dir]).data }
        do { _ = try ReportInput.read([dir]).data } catch {
            #expect(error.description == "\(dir)/records.jsonl line 2: schema peerbench.record/9, this peerbench reads \(Record.currentSchema)")
        }
    }
}
