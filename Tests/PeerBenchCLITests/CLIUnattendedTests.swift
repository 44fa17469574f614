import Foundation
import Testing

/// Unattended runs end to end: the real binary, real worker processes, real signals.
/// The cells use the test-only "misbehaving" plugin (PEERBENCH_TEST_PLUGINS=1), which
/// can take a set time, fail, hang, trap or segfault on purpose.
@Suite(.serialized) struct CLIUnattendedTests {
    static let env = ["PEERBENCH_TEST_PLUGINS": "1"]

    /// Starts the binary without waiting, so a test can signal it.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let out = Pipe(), err = Pipe()
        private var errData = Data(), outData = Data()
        private let readers = DispatchGroup()

        init(_ args: [String]) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = args
            process.environment = ProcessInfo.processInfo.environment.merging(CLIUnattendedTests.env) { _, b in b }
            process.standardOutput = out
            process.standardError = err
            try process.run()
            for (pipe, isErr) in [(out, false), (err, true)] {
                readers.enter()
                Thread { [self] in
                    let d = pipe.fileHandleForReading.readDataToEndOfFile()
                    if isErr { errData = d } else { outData = d }
                    readers.leave()
                }.start()
            }
        }

        /// Waits on a dispatch thread, never on Swift's cooperative pool: all test
        /// targets share one process, and blocking the pool's two threads (two cores)
        /// would starve the timing-sensitive runner tests running alongside.
        func wait() async -> CLIResult {
            await withCheckedContinuation { c in
                DispatchQueue.global().async { [self] in
                    process.waitUntilExit()
                    readers.wait()
                    c.resume(
                        returning: CLIResult(
                            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                            stderr: String(decoding: errData, as: UTF8.self)))
                }
            }
        }
    }

    static func run(_ args: [String]) async throws -> CLIResult { try await Running(args).wait() }

    static func pause(_ seconds: Double) async throws { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }

    static func lines(_ dir: String) -> [String] {
        ((try? String(contentsOfFile: dir + "/records.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    static func manifest(_ dir: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))) as! [String: Any]
    }

    static func keys(_ records: [[String: Any]]) -> [String] {
        records.map { "\($0["cell_id"] as! String)#\($0["repetition"] as! Int)" }
    }

    /// The command printed after "Resume with:", as arguments.
    static func resumeArguments(_ stderr: String) -> [String]? {
        guard let r = stderr.range(of: "Resume with:\n") else { return nil }
        let line = stderr[r.upperBound...].split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let words = line.split(separator: " ").map(String.init)
        guard words.first == "peerbench" else { return nil }
        return Array(words.dropFirst())
    }

    func matrix(_ transports: String, counts: String = "[10]", sizes: String = "[128]", timeout: Double = 20, extra: String = "") -> String {
        """
        {"name": "unattended", "rttProbes": 3, "cellTimeoutSeconds": \(timeout), \(extra)
         "transports": \(transports),
         "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": \(counts), "sizes": \(sizes)}}}
        """
    }

    @Test func crashingAndHangingCellsAreRecordedAndTheRunGoesOn() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            matrix(
                #"""
                [{"plugin": "misbehaving", "label": "trap", "options": {"behavior": "trap"}},
                 {"plugin": "misbehaving", "label": "segv", "options": {"behavior": "segfault"}},
                 {"plugin": "misbehaving", "label": "hang", "options": {"behavior": "hang"}},
                 {"plugin": "misbehaving", "label": "stuck", "options": {"behavior": "hangIgnoringCancel"}},
                 {"plugin": "misbehaving", "label": "ok"}]
                """#, timeout: 1), to: dir + "/m.json")
        let r = try await Self.run(["run", dir + "/m.json", "--out", dir + "/out"])
        #expect(r.status == 1, "some cells not ok: \(r.stderr)")
        let records = try CLI.records(in: dir + "/out")
        #expect(records.map { $0["status"] as? String } == ["failed", "failed", "timeout", "timeout", "ok"])
        let trap = records[0]["error"] as? String ?? ""
        #expect(trap.contains("killed by signal SIGILL") || trap.contains("killed by signal SIGTRAP"), "\(trap)")
        #expect(trap.contains("Fatal error: misbehaving plugin: deliberate trap"), "\(trap)")
        #expect((records[1]["error"] as? String ?? "").contains("killed by signal SIGSEGV"))
        let hang = records[2]["total_seconds"] as! Double
        #expect(
            hang >= 1.0 && hang < 2.0, "timeout at the 1 s deadline plus a small margin (the worker is not killed at the 2 s grace); took \(hang) s")
        #expect((records[2]["error"] as? String ?? "").contains("did not finish within 1 s"))
        // Ignoring cancellation costs the grace period, then the worker is replaced.
        let stuck = records[3]["total_seconds"] as! Double
        #expect(stuck >= 1.0 && stuck < 4.5, "deadline 1 s + 2 s grace + margin, took \(stuck) s")
    }

    @Test func interruptedRunResumesWithEveryCellExactlyOnce() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            matrix(
                #"[{"plugin": "misbehaving", "label": "slow", "options": {"sleepMs": 250}}, {"plugin": "misbehaving", "label": "fast"}]"#,
                counts: "[1, 2, 3, 4, 5, 6]"), to: dir + "/m.json")
        let out = dir + "/out"
        let p = try Running(["run", dir + "/m.json", "--out", out])
        let t0 = Date()
        while Self.lines(out).count < 3 && Date().timeIntervalSince(t0) < 20 { try await Self.pause(0.02) }
        p.process.interrupt()  // SIGINT, as Ctrl-C sends
        let stopped = await p.wait()
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("SIGINT received"))
        let first = try CLI.records(in: out)
        #expect(first.count >= 3 && first.count < 12)
        #expect(first.allSatisfy { $0["status"] as? String == "ok" }, "no partial cell is recorded")
        let m1 = try Self.manifest(out)
        #expect(m1["status"] as? String == "interrupted")
        let args = try #require(Self.resumeArguments(stopped.stderr), "the resume command is printed: \(stopped.stderr)")
        #expect(args.contains("--resume"))

        let resumed = try await Self.run(args)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let all = try CLI.records(in: out)
        #expect(all.count == 12)
        #expect(Set(Self.keys(all)).count == 12, "every cell exactly once")
        #expect(Array(Self.keys(all).prefix(first.count)) == Self.keys(first), "records already written are untouched")
        let m2 = try Self.manifest(out)
        #expect(m2["status"] as? String == "finished")
        #expect((m2["sessions"] as? [Any])?.count == 2)
        #expect(m2["run_id"] as? String == m1["run_id"] as? String)

        // Nothing left: a further resume runs nothing and records nothing.
        let again = try await Self.run(args)
        #expect(again.status == 0)
        #expect(try CLI.records(in: out).count == 12)
    }

    @Test func sigtermStopsCleanlyToo() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            matrix(#"[{"plugin": "misbehaving", "label": "hang", "options": {"behavior": "hang"}}]"#, timeout: 60),
            to: dir + "/m.json")
        let out = dir + "/out"
        let p = try Running(["run", dir + "/m.json", "--out", out])
        // The measurement floor comes first (its probe of the hanging plugin ends at
        // its 5 s limit); the manifest has it once the cells begin.
        let started = Date()
        while ((try? Self.manifest(out))?["measurement_floor"] as? [String: Any]) == nil && Date().timeIntervalSince(started) < 20 {
            try await Self.pause(0.05)
        }
        try await Self.pause(0.7)
        let t0 = Date()
        p.process.terminate()  // SIGTERM, as schedulers send
        let r = await p.wait()
        #expect(Date().timeIntervalSince(t0) < 3, "the hanging cell is abandoned at once, not at its 60 s deadline")
        #expect(r.status == 130, "\(r.stderr)")
        #expect(r.stderr.contains("SIGTERM received"))
        #expect(Self.lines(out).isEmpty)
        let m = try Self.manifest(out)
        #expect(m["status"] as? String == "interrupted")
        #expect((m["interrupted_cell"] as? [String: Any])?["summary"] as? String == "hang · forest · 1 m · 10x128 B")
    }

    @Test func secondSIGINTExitsAtOnceLeavingAValidJournal() async throws {
        let dir = CLI.tempDir()
        // In process, a plugin that ignores cancellation keeps the first stop waiting.
        try CLI.write(
            matrix(
                #"[{"plugin": "misbehaving", "label": "ok"}, {"plugin": "misbehaving", "label": "stuck", "options": {"behavior": "hangIgnoringCancel"}}]"#,
                timeout: 60), to: dir + "/m.json")
        let out = dir + "/out"
        let p = try Running(["run", dir + "/m.json", "--out", out, "--isolation", "none"])
        let t0 = Date()
        while Self.lines(out).count < 1 && Date().timeIntervalSince(t0) < 20 { try await Self.pause(0.02) }
        try await Self.pause(0.2)
        p.process.interrupt()
        try await Self.pause(0.3)
        #expect(p.process.isRunning, "the first SIGINT waits for the cell")
        let t1 = Date()
        p.process.interrupt()
        let r = await p.wait()
        #expect(Date().timeIntervalSince(t1) < 2)
        #expect(r.status == 130)
        #expect(r.stderr.contains("--resume"))
        let records = try CLI.records(in: out)  // every line parses
        #expect(records.count == 1)
        #expect(try Self.manifest(out)["status"] as? String == "interrupted")
    }

    @Test func tornLastLineIsSetAsideAndItsCellRunsAgain() async throws {
        let dir = CLI.tempDir()
        try CLI.write(matrix(#"[{"plugin": "misbehaving", "label": "a"}]"#, counts: "[1, 2, 3]"), to: dir + "/m.json")
        let out = dir + "/out"
        #expect(try await Self.run(["run", dir + "/m.json", "--out", out]).status == 0)
        var lines = Self.lines(out)
        let last = lines.removeLast()
        let torn = String(last.prefix(last.count / 2))
        try CLI.write(lines.map { $0 + "\n" }.joined() + torn, to: out + "/records.jsonl")

        let r = try await Self.run(["run", dir + "/m.json", "--resume", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("cut short by a crash"))
        #expect(try String(contentsOfFile: out + "/records.torn.jsonl", encoding: .utf8) == torn + "\n")
        let records = try CLI.records(in: out)
        #expect(records.count == 3)
        #expect(Set(Self.keys(records)).count == 3)
        #expect(Array(Self.lines(out).prefix(2)) == lines)
    }

    @Test func resumeWithAChangedMatrixIsRefused() async throws {
        let dir = CLI.tempDir()
        try CLI.write(matrix(#"[{"plugin": "misbehaving", "label": "a"}]"#), to: dir + "/m.json")
        #expect(try await Self.run(["run", dir + "/m.json", "--out", dir + "/out"]).status == 0)
        try CLI.write(
            matrix(#"[{"plugin": "misbehaving", "label": "a"}, {"plugin": "misbehaving", "label": "b"}]"#, sizes: "[128, 256]"),
            to: dir + "/m.json")
        let r = try await Self.run(["run", dir + "/m.json", "--resume", dir + "/out"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("different matrix"))
        #expect(r.stderr.contains("transport \"b\" was added"))
        #expect(r.stderr.contains("matrix.payloads.sizes: added 256"))
        #expect(Self.lines(dir + "/out").count == 1)

        let seed = try await Self.run(["run", "--resume", dir + "/out", "--seed", "5"])
        #expect(seed.status == 2)
        #expect(seed.stderr.contains("--seed: 5 differs from the run being resumed (1)"), "\(seed.stderr)")
    }

    @Test func shardsAreDisjointCoverTheMatrixAndMerge() async throws {
        let dir = CLI.tempDir()
        let m = matrix(#"[{"plugin": "misbehaving", "label": "a"}, {"plugin": "misbehaving", "label": "b"}]"#, counts: "[1, 2, 3, 4, 5]")
        try CLI.write(m, to: dir + "/m.json")
        let whole = try await Self.run(["run", dir + "/m.json", "--dry-run"])
        #expect(whole.status == 0)
        #expect(whole.stdout.contains("10 cells to run"))
        var union: [String] = []
        for k in 1...3 {
            let r = try await Self.run(["run", dir + "/m.json", "--out", dir + "/s\(k)", "--shard", "\(k)/3"])
            #expect(r.status == 0, "\(r.stderr)")
            union += Self.keys(try CLI.records(in: dir + "/s\(k)"))
        }
        #expect(union.count == 10)
        #expect(Set(union).count == 10, "disjoint")
        for key in union { #expect(whole.stdout.contains(key)) }

        let merged = try await Self.run(["merge", dir + "/s1", dir + "/s2", dir + "/s3", dir + "/s1", "--out", dir + "/all"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("exact duplicates dropped"))
        #expect(Set(Self.keys(try CLI.records(in: dir + "/all"))) == Set(union))
        #expect(try CLI.records(in: dir + "/all").count == 10)
        let manifest = try Self.manifest(dir + "/all")
        #expect(manifest["status"] as? String == "merged")
        #expect((manifest["summary"] as? [String: Any])?["ok"] as? Int == 10)

        try CLI.write(matrix(#"[{"plugin": "misbehaving", "label": "a"}]"#), to: dir + "/other.json")
        #expect(try await Self.run(["run", dir + "/other.json", "--out", dir + "/o"]).status == 0)
        let refused = try await Self.run(["merge", dir + "/s1", dir + "/o", "--out", dir + "/bad"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("not shards of one run"))
        #expect(refused.stderr.contains("matrix_hash"))
    }

    @Test func retryFailedRerunsOnlyFailuresAndKeepsHistory() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            matrix(
                #"[{"plugin": "misbehaving", "label": "ok"}, {"plugin": "misbehaving", "label": "bad", "options": {"behavior": "throw"}}]"#,
                counts: "[1, 2]"), to: dir + "/m.json")
        let out = dir + "/out"
        #expect(try await Self.run(["run", dir + "/m.json", "--out", out]).status == 1)
        #expect(try await Self.run(["run", dir + "/m.json", "--resume", out]).stderr.contains("4 cells: 2 ok, 2 failed"))
        #expect(Self.lines(out).count == 4, "a plain resume reruns nothing")
        let r = try await Self.run(["run", dir + "/m.json", "--resume", out, "--retry-failed"])
        #expect(r.status == 1)
        let records = try CLI.records(in: out)
        #expect(records.count == 6, "two failed cells ran again; the first attempts are kept")
        let byKey = Dictionary(grouping: records, by: { "\($0["cell_id"]!)" })
        for (_, rs) in byKey {
            let label = (rs[0]["transport"] as! [String: Any])["label"] as! String
            #expect(rs.count == (label == "bad" ? 2 : 1))
        }
    }

    @Test func dryRunListsCellsWithEstimatesAndRunsNothing() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            matrix(
                #"[{"plugin": "misbehaving", "label": "a"}, {"plugin": "misbehaving", "label": "b"}]"#, counts: "[1, 2]",
                extra: #""order": "sequential", "#), to: dir + "/m.json")
        let r = try await Self.run(["run", dir + "/m.json", "--dry-run", "--repetitions", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("8 cells to run, order sequential; estimated duration"))
        let rows = r.stdout.split(separator: "\n").filter { $0.contains(" · forest · ") }
        #expect(rows.count == 8)
        #expect(rows.prefix(4).allSatisfy { $0.contains(" a · ") }, "sequential: transport a first")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    }
}

/// The same interruption with a real transport, once the executable offers "tcp".
@Suite(.serialized) struct CLIUnattendedTCPTests {
    static var tcpAvailable: Bool { (try? CLI.run(["list"]).stdout.contains("tcp:")) ?? false }

    @Test(.enabled(if: tcpAvailable, "needs the tcp plugin in the executable"))
    func interruptedTCPRunResumesWithEveryCellExactlyOnce() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            """
            {"name": "tcp-resume", "rttProbes": 10, "repetitions": 15, "cellTimeoutSeconds": 20,
             "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "tcp", "label": "tcp-nodelay", "options": {"noDelay": true}}],
             "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [10000], "sizes": [4096]}}}
            """, to: dir + "/m.json")
        let out = dir + "/out"
        let p = try CLIUnattendedTests.Running(["run", dir + "/m.json", "--out", out, "--link", "none"])
        let t0 = Date()
        while CLIUnattendedTests.lines(out).count < 4 && Date().timeIntervalSince(t0) < 30 { try await CLIUnattendedTests.pause(0.005) }
        p.process.interrupt()
        let stopped = await p.wait()
        let first = try CLI.records(in: out)
        #expect(stopped.status == 130, "\(stopped.stderr)")
        #expect(first.count < 30)
        let args = try #require(CLIUnattendedTests.resumeArguments(stopped.stderr))
        let resumed = try await CLIUnattendedTests.run(args)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let all = try CLI.records(in: out)
        #expect(all.count == 30)
        #expect(Set(CLIUnattendedTests.keys(all)).count == 30, "every cell exactly once")
        #expect(all.allSatisfy { $0["status"] as? String == "ok" })
    }
}
