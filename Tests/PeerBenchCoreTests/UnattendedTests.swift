import Foundation
import Logging
import PeerBenchTestbed
import Testing

@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

/// Planning, journal repair, resume bookkeeping and merging, through the core API.
@Suite struct PlanningTests {
    let threeTransports = #"[{"plugin": "tcp", "label": "a"}, {"plugin": "udp", "label": "b"}, {"plugin": "uwb", "label": "u"}]"#

    func plan(_ text: String, order: CellOrder? = nil, shard: Shard? = nil, seed: UInt64? = nil, reps: Int? = nil) throws -> RunPlan {
        try RunPlan(
            matrix: try parse(text),
            options: RunOptions(
                matrixFile: "m.json", commandLine: [], seed: seed, repetitions: reps,
                order: order, shard: shard), linkModel: FakeLinkModel())
    }

    var text: String {
        matrixText(
            transports: threeTransports, environments: #"["forest", "underground"]"#, distances: "[1, 10]",
            counts: "[10, 20]", sizes: "[128]")
    }

    @Test func blocksHoldOneCellPerTransport() throws {
        let p = try plan(text)
        // 2 env x 2 dist x 2 payloads; UWB joins the first payload's block only.
        let blocks = CellOrder.blocks(of: p.cells)
        #expect(blocks.count == 8)
        #expect(blocks.map(\.count) == [3, 2, 3, 2, 3, 2, 3, 2])
        #expect(p.cells.count == 20)
    }

    @Test func ordersArePermutationsOfTheSameCells() throws {
        let canonical = try plan(text).cells
        for order in CellOrder.allCases {
            let cells = try plan(text, order: order).cells
            #expect(Set(cells.map(\.key)) == Set(canonical.map(\.key)), "\(order)")
            #expect(cells.count == canonical.count)
        }
        let seq = try plan(text, order: .sequential).cells
        #expect(seq.map(\.transport.label) == Array(repeating: "a", count: 8) + Array(repeating: "b", count: 8) + Array(repeating: "u", count: 4))
    }

    @Test func shuffledFollowsTheSeedAndKeepsBlocksTogether() throws {
        let one = try plan(text, order: .shuffled, seed: 7).cells.map(\.key)
        let again = try plan(text, order: .shuffled, seed: 7).cells.map(\.key)
        let other = try plan(text, order: .shuffled, seed: 8).cells.map(\.key)
        #expect(one == again)
        #expect(one != other)
        #expect(one != (try plan(text, seed: 7)).cells.map(\.key))
        // Every block's transports stay adjacent (A B / B A), so drift hits them alike.
        let cells = try plan(text, order: .shuffled, seed: 7).cells
        let blocks = CellOrder.blocks(of: try plan(text, seed: 7).cells)
        for block in blocks {
            let positions = block.map { b in cells.firstIndex { $0.key == b.key }! }.sorted()
            #expect(positions.last! - positions.first! == block.count - 1)
        }
    }

    @Test func shardsAreDisjointAndCoverTheMatrix() throws {
        let whole = try plan(text, reps: 2).cells
        for n in [1, 2, 3, 5] {
            var seen: [CellKey: Int] = [:]
            for k in 1...n {
                let cells = try plan(text, shard: Shard(index: k, count: n), reps: 2).cells
                for c in cells { seen[c.key, default: 0] += 1 }
                if n <= 3 { #expect(!cells.isEmpty) }
            }
            #expect(Set(seen.keys) == Set(whole.map(\.key)), "N=\(n): union is the whole matrix")
            #expect(seen.values.allSatisfy { $0 == 1 }, "N=\(n): no cell in two shards")
        }
        // A shard keeps a block's transports together on one machine.
        let s = try plan(text, shard: Shard(index: 2, count: 3)).cells
        #expect(Set(CellOrder.blocks(of: s).map(\.count)).isSubset(of: [2, 3]))
    }

    @Test func shardArgumentIsChecked() throws {
        #expect(try Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        for bad in ["0/4", "5/4", "1", "a/b", "1/0", "-1/2"] {
            #expect(throws: InputError.self, "\(bad)") { try Shard(parsing: bad) }
        }
    }

    @Test func orderKeyIsValidated() {
        #expect(problems(matrixText(extra: #""order": "shuffled", "#)).isEmpty)
        let p = problems(matrixText(extra: #""order": "random", "#))
        #expect(p.map(\.path) == ["$.order"])
        #expect(p.first?.message.contains("\"interleaved\", \"sequential\", \"shuffled\"") == true)
    }

    @Test func etaLearnsFromTheCellsAlreadyRun() {
        var e = ProgressEstimate(estimates: [1, 1, 2, 4])
        #expect(e.remainingSeconds == nil)
        e.finished(seconds: 2, ok: true)  // twice as slow as estimated
        #expect(e.remainingSeconds == 14)
        e.finished(seconds: 2, ok: false)
        #expect(e.remainingSeconds == 12)
        #expect(e.failures == 1)
    }
}

@Suite struct JournalTests {
    func folder() -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("pb-journal-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        try? Fixtures.writeManifest(Fixtures.manifest(), in: p)
        return p
    }

    func line(_ id: String, _ rep: Int = 1, status: CellStatus = .ok) -> String { Fixtures.line(id, rep, status: status) }

    @Test func tornLastLineIsSetAsideAndCompleteRecordsKept() throws {
        let p = folder()
        let complete = line("a") + "\n" + line("b") + "\n"
        let torn = #"{"cell_id":"c","repetition":1,"sta"#
        try Data((complete + torn).utf8).write(to: URL(fileURLWithPath: p + "/records.jsonl"))
        let (dir, warnings) = try RunDirectory.openForResume(p)
        #expect(warnings.count == 1)
        #expect(warnings[0].contains("cut short by a crash"))
        #expect(try String(contentsOfFile: p + "/records.jsonl", encoding: .utf8) == complete)
        #expect(try String(contentsOfFile: p + "/records.torn.jsonl", encoding: .utf8) == torn + "\n")
        // Appending after the repair starts on a fresh line.
        try dir.append(Fixtures.record("c"))
        #expect(dir.readRecords().records.count == 3)
        #expect(dir.readRecords().torn == nil)
    }

    @Test func recordMissingOnlyItsNewlineIsKept() throws {
        let p = folder()
        try Data((line("a") + "\n" + line("b")).utf8).write(to: URL(fileURLWithPath: p + "/records.jsonl"))
        let (dir, warnings) = try RunDirectory.openForResume(p)
        #expect(warnings.first?.contains("completed it") == true)
        #expect(dir.readRecords().records.count == 2)
        #expect(!FileManager.default.fileExists(atPath: p + "/records.torn.jsonl"))
    }

    @Test func aSecondWriterIsRefused() throws {
        let p = folder()
        let (first, _) = try RunDirectory.openForResume(p)
        #expect { _ = try RunDirectory.openForResume(p) } throws: { "\($0)".contains("in use by another peerbench run") }
        _ = first
    }

    @Test func folderWithoutManifestIsNotResumable() throws {
        let p = folder()
        try FileManager.default.removeItem(atPath: p + "/manifest.json")
        #expect { _ = try RunDirectory.openForResume(p) } throws: { "\($0)".contains("has no manifest.json") }
    }

    @Test func pendingSkipsRecordedCellsAndRetriesOnlyFailures() throws {
        let m = try parse(matrixText(counts: "[1, 2, 3, 4]"))
        let cells = m.cells()
        let records: [Record] = [
            Fixtures.record(cells[0].id, status: .ok),
            Fixtures.record(cells[1].id, status: .failed),
            Fixtures.record(cells[2].id, status: .timeout),
            Fixtures.record(cells[2].id, status: .ok),  // retried: last wins
        ]
        let index = JournalIndex(records: records)
        #expect(index.pending(cells, retryFailed: false).map(\.key) == [cells[3].key])
        #expect(index.pending(cells, retryFailed: true).map(\.key) == [cells[1].key, cells[3].key])
        let s = RunSummary(lastRecordsOf: records)
        #expect(s.total == 3 && s.byStatus[.ok] == 2 && s.byStatus[.failed] == 1)
    }

    @Test func matrixDiffSaysWhatChanged() throws {
        let old = try parse(
            matrixText(
                transports: #"[{"plugin": "tcp", "label": "a"}, {"plugin": "udp", "label": "b"}]"#,
                environments: #"["forest"]"#, counts: "[10]")
        ).document
        let new = try parse(
            matrixText(
                transports: #"[{"plugin": "tcp", "label": "a", "options": {"noDelay": true}}, {"plugin": "quic", "label": "q"}]"#,
                environments: #"["forest", "underground"]"#, counts: "[10]", extra: #""seed": 9, "#)
        ).document
        let d = MatrixDiff.describe(old: old, new: new)
        #expect(d.contains("\"seed\" was added (9)"))
        #expect(d.contains { $0.hasPrefix("transport \"q\" was added") })
        #expect(d.contains("transport \"b\" was removed"))
        #expect(d.contains { $0.hasPrefix("transport \"a\" changed from") && $0.contains("noDelay") })
        #expect(d.contains("matrix.environments: added underground"))
        #expect(MatrixDiff.describe(old: old, new: old).isEmpty)
    }
}

@Suite struct InterruptionTests {
    @Test func stopEndsTheRunAndLeavesTheRunningCellUnrecorded() async throws {
        let m = try parse(matrixText(transports: #"[{"plugin": "scripted", "label": "h", "options": {"behavior": "hang"}}]"#, counts: "[1, 2, 3]"))
        let plan = try RunPlan(
            matrix: m, options: RunOptions(matrixFile: "t.json", commandLine: [], cellTimeoutSeconds: 30), linkModel: FakeLinkModel())
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-stop-\(UUID())").path
        let dir = try RunDirectory.create(path, for: plan.matrix)
        let runner = Runner(registry: fieldStudyRegistry, testbed: LoopbackTestbed(), logger: Logger(label: "t"))
        let t0 = MonotonicClock.now()
        Task {
            try await Task.sleep(nanoseconds: 300_000_000)
            runner.stopper.fire()
        }
        let summary = try await runner.run(plan, runID: "r", into: dir, observer: nil)
        #expect(summary.interrupted)
        #expect(summary.interruptedCell?.key == plan.cells[0].key)
        #expect(summary.total == 0)
        #expect(dir.readRecords().records.isEmpty)
        #expect(Double(MonotonicClock.elapsed(since: t0)) / 1e9 < 3, "the hanging cell is stopped at once, not at its 30 s deadline")
    }
}

/// The supervisor side of process isolation against small real worker processes
/// (shell one-liners standing in for `peerbench cell-worker`).
@Suite struct WorkerProcessTests {
    var request: CellRequest {
        let m = try! parse(matrixText())
        let cell = m.cells()[0]
        return CellRequest(
            transport: cell.transport,
            cell: CellContextSeed(cellID: cell.id, repetition: 1, seed: cell.seed, payload: cell.payload, rttProbes: 3),
            timeoutSeconds: 5, cellTimeoutSeconds: 5,
            link: ResolvedLink(environment: "forest", distanceMeters: 1, distanceLabel: "1"),
            client: Endpoint(address: "127.0.0.1"), server: Endpoint(address: "127.0.0.1"))
    }

    @Test func repliesComeBackOverTheProtocolPipe() async throws {
        let w = WorkerProcess(executable: "/bin/sh", arguments: ["-c", #"while read line; do echo '{"failed": "from the worker"}' >&3; done"#])
        for _ in 0..<2 {
            guard case .outcome(.failed(let text)) = await w.run(request, hardTimeout: 5) else {
                Issue.record("no reply")
                return
            }
            #expect(text == "from the worker")
        }
        w.finish()
    }

    @Test func aCrashedWorkerIsDescribedByItsSignal() async throws {
        let w = WorkerProcess(executable: "/bin/sh", arguments: ["-c", "echo 'Fatal error: boom' >&2; kill -SEGV $$"])
        guard case .died(let how) = await w.run(request, hardTimeout: 5) else {
            Issue.record("expected a death")
            return
        }
        #expect(how.contains("killed by signal SIGSEGV"))
        #expect(how.contains("Fatal error: boom"))
        // The next cell gets a fresh worker.
        guard case .died = await w.run(request, hardTimeout: 5) else {
            Issue.record("expected a fresh worker to die again")
            return
        }
    }

    @Test func anUnresponsiveWorkerIsKilledAtTheHardDeadline() async throws {
        let w = WorkerProcess(executable: "/bin/sh", arguments: ["-c", "exec sleep 30"])
        let t0 = MonotonicClock.now()
        guard case .unresponsive = await w.run(request, hardTimeout: 0.3) else {
            Issue.record("expected unresponsive")
            return
        }
        let took = Double(MonotonicClock.elapsed(since: t0)) / 1e9
        #expect(took >= 0.3 && took < 5, "killed near 0.3 s, not after the 30 s sleep; took \(took) s")
    }

    @Test func requestsSurviveTheTripIntact() throws {
        var r = request
        r.cell.seed = UInt64.max - 7  // above 2^53: must not round through a double
        r.client = Endpoint(address: "10.0.0.1", namespace: NetworkNamespace(name: "pb-client"))
        r.link.delayMs = 12.5
        let back = try CellRequest(json: try JSONParser.parse(r.json.compactText))
        #expect(back.cell.seed == UInt64.max - 7)
        #expect(back.client.namespace?.name == "pb-client")
        #expect(back.link.delayMs == 12.5)
        #expect(back.transport.label == r.transport.label)
        var m = TransportMeasurement()
        m.rttNanos = [1, 2, 3_000_000_001]
        m.delivery = Delivery(sentMessages: 3, receivedMessages: 2, sentBytes: 30, receivedBytes: 20, reordered: 1)
        m.extra["tcp"] = ["retransmits": 4]
        guard case .measured(let m2) = try PluginSession.Outcome(json: try JSONParser.parse(PluginSession.Outcome.measured(m).json.compactText))
        else {
            Issue.record("not measured")
            return
        }
        #expect(m2.rttNanos == m.rttNanos)
        #expect(m2.delivery == m.delivery)
        #expect(m2.extra == m.extra)
    }
}
