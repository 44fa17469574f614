import Foundation
import Testing

/// Only the transport's own death can make a scenario cell `ok` (issue 42, item 2). A
/// tcp cell with `userTimeoutMs` 20 000 under a 30 s outage would die as its settings
/// predict, about 20 s into the outage; these tests end it 8 s into the run by other
/// means: its worker killed with SIGKILL (recorded `failed`, not `ok` with a detect_ms
/// of the kill), and the runner interrupted with SIGINT (the cell is not recorded at
/// all, so resume runs it again). Before the fix both left an `ok` record.
@Suite(.serialized, .enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
struct HarnessFailureStatusTests {
    /// 100 000 x 16 KiB at 20 Mbit/s would take 11 minutes: the bulk phase is still on
    /// when the outage (1.5 s to 31.5 s) begins, and at the kill 8 s in.
    static let matrix = """
        {"name": "harness-failure", "rttProbes": 3, "cellTimeoutSeconds": 60,
         "transports": [{"plugin": "tcp", "label": "tcp-ut20", "options": {"userTimeoutMs": 20000}}],
         "matrix": {"environments": [\(ScenarioRunTests.lab)], "distances": [1],
                    "scenarios": [{"name": "outage-30s", "kind": "outage", "atSeconds": 1.5, "durationSeconds": 30}],
                    "payloads": {"counts": [100000], "sizes": [16384]}}}
        """

    /// Starts the run and returns it with its worker's pid once the worker is 8 s into the cell.
    static func startAndWait(_ dir: String) async throws -> (CLIRunnerDeathTests.Spawned, Int32) {
        try CLI.write(Self.matrix, to: dir + "/m.json")
        let p = try CLIRunnerDeathTests.Spawned(["run", dir + "/m.json", "--out", dir + "/out", "--link", "emulated"])
        var worker: Int32?
        _ = try await CLIRunnerDeathTests.eventually(30) {
            worker = CLIRunnerDeathTests.children(of: p.pid, running: "cell-worker").first
            return worker != nil
        }
        let w = try #require(worker, "the run started a worker process")
        try await Task.sleep(nanoseconds: 8_000_000_000)
        #expect(CLIRunnerDeathTests.isAlive(w), "the cell still runs 8 s in (its user timeout is 20 s into a 30 s outage)")
        return (p, w)
    }

    static func records(_ dir: String) -> [[String: Any]] { (try? CLI.records(in: dir + "/out")) ?? [] }

    @Test("a worker killed with SIGKILL during the outage is a failed cell, though tcp's user timeout would have predicted a death")
    func killedWorkerIsFailed() async throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (p, w) = try await Self.startAndWait(dir)
        kill(w, SIGKILL)
        let end = await p.wait()
        let recs = Self.records(dir)
        #expect(recs.count == 1, "one record for the one cell: \(recs)\n\(end.stderr)")
        for r in recs {
            #expect(r["status"] as? String == "failed", "a harness failure is failed whatever the scenario: \(r)")
            #expect((r["error"] as? String ?? "").contains("SIGKILL"), "the error says how the worker died: \(r["error"] ?? "none")")
        }
        #expect(end.status == 1, "a run with a failed cell exits 1: \(end.status)\n\(end.stderr)")
    }

    @Test("SIGINT during the outage leaves the cell unrecorded (no ok record), and the run exits as interrupted")
    func interruptedCellIsNotRecorded() async throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (p, _) = try await Self.startAndWait(dir)
        kill(p.pid, SIGINT)
        let end = await p.wait()
        #expect(end.status == 130, "interrupted: \(end.status)\n\(end.stderr)")
        let recs = Self.records(dir)
        #expect(recs.isEmpty, "the cell in flight at the interrupt is not recorded, so resume runs it again: \(recs)")
        #expect(!recs.contains { $0["status"] as? String == "ok" })
    }
}
