import Foundation
import Testing

/// A run whose binary is rebuilt while it runs: the worker that replaces a crashed one
/// is the runner's own image (/proc/self/exe), not whatever file now has its name (a
/// release build rebuilt under a run of 2026-12-01 is the likely cause of its quic cells
/// all failing after it). Uses the test-only "misbehaving" plugin (PEERBENCH_TEST_PLUGINS=1).
@Suite(.serialized) struct CLIRebuiltBinaryTests {
    @Test("the file replaced mid-run, a crashed worker's successor still runs the runner's own binary")
    func aReplacedBinaryDoesNotReachTheNextWorker() throws {
        let dir = CLI.tempDir()
        let binary = dir + "/peerbench"
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: binary)
        try CLI.write(
            #"""
            {"name": "rebuilt", "rttProbes": 3, "cellTimeoutSeconds": 20,
             "transports": [{"plugin": "misbehaving", "label": "trap", "options": {"behavior": "trap", "sleepMs": 1500}},
                            {"plugin": "misbehaving", "label": "ok"}],
             "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [10], "sizes": [128]}}}
            """#, to: dir + "/m.json")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["run", dir + "/m.json", "--out", dir + "/out", "--quiet"]
        p.environment = ProcessInfo.processInfo.environment.merging(["PEERBENCH_TEST_PLUGINS": "1"]) { _, b in b }
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        // While the first cell sleeps before it traps: a new file under the binary's name,
        // as a rebuild (the linker writes a new file, then renames it over the old one).
        Thread.sleep(forTimeInterval: 0.3)
        try "#!/bin/sh\necho 'not the runner' >&2\nexit 3\n".write(toFile: binary + ".new", atomically: false, encoding: .utf8)
        _ = chmod(binary + ".new", 0o755)
        _ = rename(binary + ".new", binary)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let records = try CLI.records(in: dir + "/out")
        #expect(records.map { $0["status"] as? String } == ["failed", "ok"], "\(stderr) \(records.map { $0["error"] ?? "" })")
        let trap = records.first.flatMap { $0["error"] as? String } ?? ""
        #expect(trap.contains("killed by signal"), "\(trap)")
        #expect(p.terminationStatus == 1, "the trap cell failed, the run finished: \(stderr)")
    }
}
