import Foundation
import Testing

/// The run folder under stress: raw samples beside the records, a disk that fills up
/// mid-run, and folders whose manifest.json is not a manifest (issue 16 §6, issue 11 §1).
@Suite(.serialized) struct CLIRunFolderTests {
    static func jsonLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    static var tcpAvailable: Bool { CLIUnattendedTCPTests.tcpAvailable }

    @Test(.enabled(if: tcpAvailable, "needs the tcp plugin"))
    func everyRecordHasASamplesLineWithItsRawProbes() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            """
            {"name": "samples", "rttProbes": 20, "repetitions": 2, "cellTimeoutSeconds": 20, "transports": [{"plugin": "tcp", "label": "tcp"}],
             "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [1000], "sizes": [128]}}}
            """, to: dir + "/m.json")
        let out = dir + "/out"
        let r = try await CLIUnattendedTests.run(["run", dir + "/m.json", "--out", out, "--link", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let records = try CLI.records(in: out)
        let samples = try Self.jsonLines(out + "/samples.jsonl")
        try #require(samples.count == 2 && records.count == 2)
        for (s, rec) in zip(samples, records) {
            #expect(
                Set(s.keys) == [
                    "schema", "run_id", "cell_id", "repetition", "rtt_ns", "rtt_loaded_ns", "bulk_series", "ranging", "transaction_ns",
                    "frame_delay_ns",
                ],
                "every key written, nulls explicit: \(s.keys.sorted())")
            #expect(s["schema"] as? String == "peerbench.samples/1")
            #expect(s["run_id"] as? String == rec["run_id"] as? String)
            #expect(s["cell_id"] as? String == rec["cell_id"] as? String)
            #expect(s["repetition"] as? Int == rec["repetition"] as? Int)
            let rtt = try #require(s["rtt_ns"] as? [Int])
            #expect(rtt.count == 20)
            #expect(rtt.allSatisfy { $0 > 0 })
            // The record's summary is computed from the same probes.
            let p50 = try #require((rec["rtt_ms"] as? [String: Any])?["count"] as? Int)
            #expect(p50 == 20)
        }
    }

    @Test func aTornSamplesTailIsSetAsideOnResume() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            """
            {"name": "samples-torn", "rttProbes": 3, "cellTimeoutSeconds": 20, "transports": [{"plugin": "misbehaving", "label": "a"}],
             "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [1, 2], "sizes": [128]}}}
            """, to: dir + "/m.json")
        let out = dir + "/out"
        #expect(try await CLIUnattendedTests.run(["run", dir + "/m.json", "--out", out]).status == 0)
        let handle = try #require(FileHandle(forWritingAtPath: out + "/samples.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"schema":"peerbench.samp"#.utf8))
        try handle.close()
        let r = try await CLIUnattendedTests.run(["run", "--resume", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains("\(out)/samples.jsonl: the last line (25 bytes) was cut short by a crash; moved it to \(out)/samples.torn.jsonl"),
            "\(r.stderr)")
        #expect(try Self.jsonLines(out + "/samples.jsonl").count == 2, "every line complete again")
        #expect(try String(contentsOfFile: out + "/samples.torn.jsonl", encoding: .utf8) == #"{"schema":"peerbench.samp"# + "\n")
    }

    /// A tmpfs of `size` mounted for the test, removed after.
    static func withTmpfs(size: String, _ body: (String) async throws -> Void) async throws {
        let mnt = CLI.tempDir() + "/mnt"
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        try #require(try CLI.runTool("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mnt]) == 0, "mount tmpfs")
        defer { _ = try? CLI.runTool("/usr/bin/umount", ["-l", mnt]) }
        try await body(mnt)
    }

    /// Writes to `path` until the file system is full.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        var one: UInt8 = 1
        while write(fd, &one, 1) > 0 {}
    }

    @Test(.enabled(if: geteuid() == 0, "mounts a tmpfs"))
    func aDiskThatFillsUpMidRunEndsTheRunCleanly() async throws {
        try await Self.withTmpfs(size: "1m") { mnt in
            let dir = CLI.tempDir()
            try CLI.write(
                """
                {"name": "disk-full", "rttProbes": 3, "cellTimeoutSeconds": 20, "transports": [{"plugin": "misbehaving", "label": "a", "options": {"sleepMs": 100}}],
                 "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": \(CLIMatrixLimitsTests.list(1...60)), "sizes": [128]}}}
                """, to: dir + "/m.json")
            let out = mnt + "/out"
            let p = try CLIUnattendedTests.Running(["run", dir + "/m.json", "--out", out])
            let t0 = Date()
            while CLIUnattendedTests.lines(out).count < 3 && Date().timeIntervalSince(t0) < 30 { try await CLIUnattendedTests.pause(0.02) }
            Self.fill(mnt + "/filler")
            let r = await p.wait()
            #expect(r.status == 4, "the documented code for an unwritable run folder: \(r.stderr)")
            #expect(r.stderr.contains("peerbench: error: cannot write \(out)/"), "\(r.stderr)")
            #expect(r.stderr.contains("no space left on the device"), "\(r.stderr)")
            #expect(!r.stderr.contains("NSCocoaErrorDomain"))
            let journal = try String(contentsOfFile: out + "/records.jsonl", encoding: .utf8)
            #expect(journal.hasSuffix("\n"), "no partial line")
            let records = try CLI.records(in: out)  // every line parses
            #expect(records.count >= 3 && records.count < 60)
            #expect(try CLIUnattendedTests.manifest(out)["status"] as? String == "failed")
            let files = try FileManager.default.contentsOfDirectory(atPath: out)
            #expect(!files.contains { $0.hasSuffix(".tmp") }, "\(files)")
            // Once there is room again, the run resumes to every cell exactly once.
            try FileManager.default.removeItem(atPath: mnt + "/filler")
            let resumed = try await CLIUnattendedTests.run(["run", "--resume", out])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(Set(CLIUnattendedTests.keys(try CLI.records(in: out))).count == 60)
        }
    }

    @Test(arguments: ["{}", "[1,2]"])
    func aFolderWhoseManifestIsNotAManifestIsNamedForWhatItIs(manifest: String) async throws {
        let dir = CLI.tempDir()
        try CLI.write(CLIUnattendedTests.matrixText, to: dir + "/m.json")
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try CLI.write(manifest, to: out + "/manifest.json")
        let resumed = try await CLIUnattendedTests.run(["run", "--resume", out])
        #expect(resumed.status == 2)
        #expect(resumed.stderr.contains("\(out)/manifest.json"), "\(resumed.stderr)")
        #expect(!resumed.stderr.contains("file not found"), "\(resumed.stderr)")
        let fresh = try await CLIUnattendedTests.run(["run", dir + "/m.json", "--out", out])
        #expect(fresh.status == 2)
        #expect(fresh.stderr.contains("\(out) holds a manifest.json that"), "\(fresh.stderr)")
        #expect(try String(contentsOfFile: out + "/manifest.json", encoding: .utf8) == manifest, "not overwritten")
    }
}

extension CLIUnattendedTests {
    /// A one-cell matrix of the test plugin.
    static let matrixText = """
        {"name": "folder", "rttProbes": 3, "cellTimeoutSeconds": 20, "transports": [{"plugin": "misbehaving", "label": "a"}],
         "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [1], "sizes": [128]}}}
        """
}
