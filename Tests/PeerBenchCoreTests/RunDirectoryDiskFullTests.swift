import Foundation
import Testing

@testable import PeerBenchCore

/// Writing the CSV to a full disk: a sentence naming the file, no temporary file left.
@Suite struct RunDirectoryDiskFullTests {
    @Test(.enabled(if: geteuid() == 0, "mounts a tmpfs"))
    func csvOnAFullDiskNamesTheFileAndLeavesNoTemporary() throws {
        let mnt = FileManager.default.temporaryDirectory.appendingPathComponent("pb-csv-\(UUID())").path
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/usr/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0)
        defer {
            let u = Process()
            u.executableURL = URL(fileURLWithPath: "/usr/bin/umount")
            u.arguments = ["-l", mnt]
            try? u.run()
            u.waitUntilExit()
        }
        let dir = RunDirectoryAccess.open(mnt)
        // 32 records (about 1.9 kB each) fill most of the 64 KiB; the filler takes the rest.
        let lines = (1...32).map { Fixtures.line("c\($0)") }.joined(separator: "\n") + "\n"
        let wrote = FileManager.default.createFile(atPath: dir.journalPath, contents: Data(lines.utf8))
        try #require(wrote, "the journal fits")
        let fd = open(mnt + "/filler", O_WRONLY | O_CREAT, 0o644)
        var one: UInt8 = 1
        while write(fd, &one, 1) > 0 {}
        close(fd)
        do {
            try dir.exportCSV()
            Issue.record("expected the CSV to fail on a full disk")
        } catch {
            #expect(error.isDiskFull)
            #expect(error.description == "cannot write \(mnt)/records.csv: no space left on the device")
        }
        #expect(!FileManager.default.fileExists(atPath: mnt + "/records.csv.tmp"))
    }
}
