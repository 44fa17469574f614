import Foundation
import Testing

/// What a run leaves behind when it dies or is stopped at awkward moments (issue 16
/// §2): its worker process must die with it, its namespaces must go, and a stop
/// signal at any moment — SIGHUP included — must end it as `interrupted`.
@Suite(.serialized) struct CLIRunnerDeathTests {
    /// Root and a TUN device: what `--link emulated` needs.
    static var canEmulate: Bool { geteuid() == 0 && access("/dev/net/tun", R_OK | W_OK) == 0 }

    /// The binary started with extra environment variables, not waited for.
    final class Spawned: @unchecked Sendable {
        let process = Process()
        private let err = Pipe()
        private var errData = Data()
        private let reader = DispatchGroup()

        init(_ args: [String], env: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = args
            process.environment = ProcessInfo.processInfo.environment.merging(CLIUnattendedTests.env.merging(env) { _, b in b }) { _, b in b }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = err
            try process.run()
            reader.enter()
            Thread { [self] in
                errData = err.fileHandleForReading.readDataToEndOfFile()
                reader.leave()
            }.start()
        }

        var pid: Int32 { process.processIdentifier }

        func wait() async -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
            await withCheckedContinuation { c in
                DispatchQueue.global().async { [self] in
                    process.waitUntilExit()
                    // A killed runner's children may hold stderr open: do not wait for them forever.
                    _ = reader.wait(timeout: .now() + 5)
                    c.resume(returning: (process.terminationStatus, process.terminationReason, String(decoding: errData, as: UTF8.self)))
                }
            }
        }
    }

    /// Processes whose parent is `parent` and whose command line contains `word`.
    static func children(of parent: Int32, running word: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == parent else { return false }
            let cmd = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return String(decoding: cmd, as: UTF8.self).contains(word)
        }
    }

    static func isAlive(_ pid: Int32) -> Bool {
        // A zombie has been reaped by init soon after; count it as gone.
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// Namespaces of the run with process id `pid` (`pb-<pid>-...`).
    static func namespaces(of pid: Int32) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []).filter { $0.hasPrefix("pb-\(pid)-") }
    }

    /// Polls `condition` every 20 ms for up to `seconds`; true once it holds.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let t0 = Date()
        while Date().timeIntervalSince(t0) < seconds {
            if condition() { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    static func matrix(_ transport: String, count: Int = 10, size: Int = 128, timeout: Double = 60) -> String {
        """
        {"name": "runner-death", "rttProbes": 3, "cellTimeoutSeconds": \(timeout),
         "transports": [\(transport)],
         "matrix": {"environments": ["free-field"], "distances": [10], "payloads": {"counts": [\(count)], "sizes": [\(size)]}}}
        """
    }

    static let hang = #"{"plugin": "misbehaving", "label": "hang", "options": {"behavior": "hang"}}"#

    /// Starts a run, waits for its worker, kills the runner with SIGKILL and returns
    /// the worker's pid.
    static func killRunnerMidCell(_ args: [String]) async throws -> (runner: Int32, worker: Int32) {
        let p = try Spawned(args)
        var worker: Int32?
        _ = try await eventually(30) {
            worker = children(of: p.pid, running: "cell-worker").first
            return worker != nil
        }
        let w = try #require(worker, "the run started a worker process")
        try await Task.sleep(nanoseconds: 1_500_000_000)  // well into the cell
        #expect(isAlive(w))
        kill(p.pid, SIGKILL)
        // Not waiting for the runner's exit here: the worker shares its stderr, so a
        // surviving worker would hold that wait up.
        let gone = try await eventually(2) { !isAlive(w) }
        if !gone { kill(w, SIGKILL) }
        #expect(gone, "the worker of a killed runner ends within 2 s of the kill, not at its cell's deadline")
        _ = await p.wait()
        return (p.pid, w)
    }

    @Test func workerDiesWithARunnerKilledMidCellOnLoopback() async throws {
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(Self.hang), to: dir + "/m.json")
        _ = try await Self.killRunnerMidCell(["run", dir + "/m.json", "--out", dir + "/out", "--link", "none"])
    }

    @Test(.enabled(if: canEmulate, "needs root and /dev/net/tun"))
    func workerAndNamespacesGoWithARunnerKilledMidCellOnTheEmulatedLink() async throws {
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(#"{"plugin": "tcp", "label": "tcp"}"#, count: 100_000, size: 16_384, timeout: 30), to: dir + "/m.json")
        let (runner, _) = try await Self.killRunnerMidCell(["run", dir + "/m.json", "--out", dir + "/out", "--link", "emulated"])
        let cleaned = try await Self.eventually(3) { Self.namespaces(of: runner).isEmpty }
        #expect(cleaned, "left behind: \(Self.namespaces(of: runner))")
    }

    @Test(.enabled(if: canEmulate, "needs root and /dev/net/tun"))
    func aRunKilledWhileCreatingItsNamespacesLeavesNone() async throws {
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(Self.hang), to: dir + "/m.json")
        // The hook pauses after each `ip netns add`: the kill lands between the two.
        let p = try Spawned(
            ["run", dir + "/m.json", "--out", dir + "/out", "--link", "emulated"],
            env: ["PEERBENCH_TEST_SETUP_PAUSE_MS": "3000"])
        let made = try await Self.eventually(30) { !Self.namespaces(of: p.pid).isEmpty }
        #expect(made, "the run created its first namespace")
        kill(p.pid, SIGKILL)
        _ = await p.wait()
        let cleaned = try await Self.eventually(3) { Self.namespaces(of: p.pid).isEmpty }
        #expect(cleaned, "left behind: \(Self.namespaces(of: p.pid))")
        for name in Self.namespaces(of: p.pid) { _ = try? CLI.runTool("/usr/sbin/ip", ["netns", "del", name]) }
    }

    @Test(.enabled(if: canEmulate, "needs root and /dev/net/tun"))
    func ctrlCWhileCreatingNamespacesEndsAsInterrupted() async throws {
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(Self.hang), to: dir + "/m.json")
        let out = dir + "/out"
        let p = try Spawned(["run", dir + "/m.json", "--out", out, "--link", "emulated"], env: ["PEERBENCH_TEST_SETUP_PAUSE_MS": "1000"])
        let made = try await Self.eventually(30) { !Self.namespaces(of: p.pid).isEmpty }
        #expect(made)
        kill(p.pid, SIGINT)
        let r = await p.wait()
        #expect(r.reason == .exit && r.status == 130, "exits as interrupted, not by the signal: \(r.stderr)")
        #expect(r.stderr.contains("SIGINT received"))
        #expect(r.stderr.contains("Resume with:"), "\(r.stderr)")
        #expect(try CLIUnattendedTests.manifest(out)["status"] as? String == "interrupted")
        #expect(Self.namespaces(of: p.pid).isEmpty)
    }

    @Test func sighupEndsTheRunAsInterruptedWithTheResumeCommand() async throws {
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(Self.hang), to: dir + "/m.json")
        let out = dir + "/out"
        let p = try Spawned(["run", dir + "/m.json", "--out", out, "--link", "none"])
        var worker: Int32?
        _ = try await Self.eventually(30) {
            worker = Self.children(of: p.pid, running: "cell-worker").first
            return worker != nil
        }
        try await Task.sleep(nanoseconds: 500_000_000)
        kill(p.pid, SIGHUP)
        let r = await p.wait()
        #expect(r.reason == .exit && r.status == 130, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("SIGHUP received"), "\(r.stderr)")
        #expect(r.stderr.contains("Resume with:"), "\(r.stderr)")
        #expect(try CLIUnattendedTests.manifest(out)["status"] as? String == "interrupted")
        if let worker { #expect(try await Self.eventually(2) { !Self.isAlive(worker) }) }
    }

    @Test func sighupWithTheTerminalGoneStillEndsAsInterrupted() async throws {
        // A hang-up usually means stderr is gone too: writing there must not trap.
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(Self.hang), to: dir + "/m.json")
        let out = dir + "/out"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["run", dir + "/m.json", "--out", out, "--link", "none"]
        p.environment = ProcessInfo.processInfo.environment.merging(CLIUnattendedTests.env) { _, b in b }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let started = try await Self.eventually(30) { !Self.children(of: p.processIdentifier, running: "cell-worker").isEmpty }
        #expect(started)
        try err.fileHandleForReading.close()
        kill(p.processIdentifier, SIGHUP)
        let ended = try await Self.eventually(10) { !p.isRunning }
        if !ended { p.terminate() }
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 130, "\(p.terminationReason.rawValue) \(p.terminationStatus)")
        #expect(try CLIUnattendedTests.manifest(out)["status"] as? String == "interrupted")
    }

    @Test(.enabled(if: canEmulate, "needs root and /dev/net/tun"))
    func theNextRunRemovesAKilledRunsNamespacesAndSaysSo() async throws {
        // A pid that surely ended: a finished child of ours.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let name = "pb-\(gone.processIdentifier)-7c"
        _ = try CLI.runTool("/usr/sbin/ip", ["netns", "add", name])
        let dir = CLI.tempDir()
        try CLI.write(Self.matrix(#"{"plugin": "misbehaving", "label": "ok"}"#, timeout: 20), to: dir + "/m.json")
        let r = try await CLIUnattendedTests.run(["run", dir + "/m.json", "--out", dir + "/out", "--link", "emulated"])
        let still = FileManager.default.fileExists(atPath: "/run/netns/" + name)
        if still { _ = try? CLI.runTool("/usr/sbin/ip", ["netns", "del", name]) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!still)
        #expect(r.stderr.contains("removed 1 network namespace left by runs that were killed: \(name)"), "\(r.stderr)")
    }
}

extension CLI {
    /// Runs a system tool (not peerbench), for set-up and clean-up in tests.
    @discardableResult
    static func runTool(_ path: String, _ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}
