import Foundation
import Logging
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing

@Suite struct RunnerTests {
    func run(_ text: String, timeout: Double = 30) async throws -> (records: [JSONValue], summary: RunSummary, dir: String) {
        let m = try parse(text)
        let plan = try RunPlan(
            matrix: m, options: RunOptions(matrixFile: "test.json", commandLine: [], cellTimeoutSeconds: timeout), linkModel: FakeLinkModel())
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-run-\(UUID())").path
        let dir = try RunDirectory.create(path, for: plan.matrix)
        try dir.writeManifest(
            Manifest(
                runID: "test-run", plan: plan, linkMode: .none, startedAt: Date(), endedAt: nil, status: "running",
                summary: nil, versions: [:]))
        let runner = Runner(registry: fieldStudyRegistry, testbed: LoopbackTestbed(), logger: Logger(label: "test"))
        let summary = try await runner.run(plan, runID: "test-run", into: dir, observer: nil)
        return (dir.readRecords().records.map(\.json), summary, path)
    }

    @Test func everyRecordHasEveryTopLevelKey() async throws {
        let (records, summary, _) = try await run(matrixText(transports: #"[{"plugin": "scripted", "label": "a"}, {"plugin": "uwb"}]"#))
        #expect(summary.total == 2)
        for r in records {
            #expect(r.objectValue?.keys == Record.topLevelKeys)
            #expect(
                r["link"]?.objectValue?.keys == [
                    "mode", "delay_ms", "jitter_ms", "loss_percent", "rate_mbps", "mtu", "rssi_dbm",
                    "snr_db", "mcs", "phy_rate_mbps", "packets_up", "packets_down", "bytes_up",
                    "bytes_down", "drops_up", "drops_down", "peer_address", "interface",
                    "path_mtu", "control_rtt_ms", "performance_mode", "service_class",
                    "radio_on_fraction", "energy_mj",
                ])
        }
        let ok = records[0]
        #expect(ok["status"] == "ok")
        #expect(ok["throughput_mbps"]?.doubleValue == 10)  // 1 250 000 B in 1 s
        #expect(ok["rtt_ms"]?["count"] == 3)
        #expect(ok["rtt_ms"]?["p50"]?.doubleValue.map { abs($0 - 2) < 0.01 } == true)
        #expect(ok["jitter_ms"]?["ipdv_mean"]?.doubleValue == 1)
        #expect(ok["jitter_ms"]?["rfc3550"] == .null)
        #expect(ok["payload"] == ["count": 10, "size": 128])
        #expect(records[1]["payload"] == .null)
        #expect(records[1]["delivery"] == .null)
    }

    @Test func failingCellIsRecordedAndTheRunGoesOn() async throws {
        let (records, summary, _) = try await run(
            matrixText(
                transports: #"[{"plugin": "scripted", "label": "bad", "options": {"behavior": "throw"}}, {"plugin": "scripted", "label": "good"}]"#))
        #expect(records.map { $0["status"] } == ["failed", "ok"])
        #expect(records[0]["error"] == "scripted failure")
        #expect(summary.notOK == 1)
    }

    @Test func hangingCellTimesOutWithinItsDeadline() async throws {
        let t0 = MonotonicClock.now()
        let (records, _, _) = try await run(
            matrixText(
                transports: #"[{"plugin": "scripted", "label": "hang", "options": {"behavior": "hang"}}, {"plugin": "scripted", "label": "next"}]"#),
            timeout: 0.5)
        let elapsed = Double(MonotonicClock.elapsed(since: t0)) / 1e9
        #expect(records.map { $0["status"] } == ["timeout", "ok"])
        #expect(records[0]["error"]?.stringValue?.contains("did not finish within 0.5 s") == true)
        #expect(elapsed < 2.0, "cancellation unblocks the recv at once (took \(elapsed) s)")
    }

    @Test func cellIgnoringCancellationIsAbandonedAfterGrace() async throws {
        let t0 = MonotonicClock.now()
        let (records, _, _) = try await run(
            matrixText(
                transports: #"[{"plugin": "scripted", "label": "stuck", "options": {"behavior": "hangIgnoringCancel"}}]"#), timeout: 0.3)
        #expect(records.map { $0["status"] } == ["timeout"])
        let elapsed = Double(MonotonicClock.elapsed(since: t0)) / 1e9
        #expect(elapsed < 3.5, "deadline 0.3 s + 2 s grace (took \(elapsed) s)")
    }

    @Test func cellBeyondRadioRangeIsRecordedNotRun() async throws {
        let (records, _, _) = try await run(matrixText(distances: "[1000]"))
        #expect(records[0]["status"] == "failed")
        #expect(records[0]["error"]?.stringValue?.hasPrefix("no radio link at 1000 m in forest") == true)
    }

    @Test func outFolderWithOtherRecordsIsRefused() async throws {
        let (_, _, path) = try await run(matrixText())
        let other = try parse(matrixText(counts: "[20]"))
        #expect {
            _ = try RunDirectory.create(path, for: other)
        } throws: { error in
            "\(error)".contains("already holds 1 records of a different matrix")
        }
        let same = try parse(matrixText())
        #expect {
            _ = try RunDirectory.create(path, for: same)
        } throws: { error in
            "\(error)".contains("already holds 1 records of this matrix")
        }
    }

    @Test func csvExportHasOneRowPerRecord() async throws {
        let (_, _, path) = try await run(matrixText(counts: "[1, 2]"))
        let m = try parse(matrixText(counts: "[1, 2]"))
        _ = m
        let dir = RunDirectoryAccess.open(path)
        try dir.exportCSV()
        let csv = try String(contentsOfFile: path + "/records.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 3)
        #expect(csv[0].hasPrefix("run_id,cell_id,repetition"))
        #expect(csv[1].split(separator: ",", omittingEmptySubsequences: false).count == RecordsCSV.columns.count)
    }
}
