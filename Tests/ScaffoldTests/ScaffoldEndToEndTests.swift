import Foundation
import Testing

/// `swift package new-transport` for real, in a temporary copy of this package: the
/// plugin runs, the result builds, and the generated test passes. Slow (a full build
/// of the copy, minutes); set PEERBENCH_SKIP_SCAFFOLD_E2E=1 to skip it while iterating
/// locally. CI runs it.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ScaffoldEndToEndTests {
    static let skip = ProcessInfo.processInfo.environment["PEERBENCH_SKIP_SCAFFOLD_E2E"] == "1"

    struct Outcome { var status: Int32; var output: String }

    /// Runs a command in `dir`, output (stdout + stderr) captured to a file so a long
    /// build never blocks on a full pipe.
    func run(_ args: [String], in dir: String) throws -> Outcome {
        let log = dir + "/.scaffold-test-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? FileManager.default.removeItem(atPath: log) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        p.waitUntilExit()
        try handle.close()
        return Outcome(status: p.terminationStatus, output: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test(.enabled(if: !skip, "PEERBENCH_SKIP_SCAFFOLD_E2E=1"), .timeLimit(.minutes(30)))
    func newTransportBuildsAndPassesItsTest() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("pb-scaffold-e2e-\(UUID())").path
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let tar = try run(["sh", "-c", "tar -C '\(packageRoot)' --exclude=./.build --exclude=./.git --exclude=./.swiftpm -cf - . | tar -xf -"], in: copy)
        #expect(tar.status == 0, "\(tar.output)")
        let manifestBefore = try String(contentsOfFile: copy + "/Package.swift", encoding: .utf8)

        // Refusals first: they must leave the copy untouched.
        let bad = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "my-proto"], in: copy)
        #expect(bad.status != 0)
        #expect(bad.output.contains("\"my-proto\" is not a valid name"), "\(bad.output.suffix(2_000))")
        let taken = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "tls"], in: copy)
        #expect(taken.status != 0)
        #expect(taken.output.contains("is taken"), "\(taken.output.suffix(2_000))")
        #expect(try String(contentsOfFile: copy + "/Package.swift", encoding: .utf8) == manifestBefore)
        #expect(!FileManager.default.fileExists(atPath: copy + "/Sources/MyprotoTransport"))

        let made = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "Loopy"], in: copy)
        #expect(made.status == 0, "\(made.output.suffix(3_000))")
        #expect(made.output.contains("created the \"loopy\" transport"))
        #expect(FileManager.default.fileExists(atPath: copy + "/Sources/LoopyTransport/LoopyPlugin.swift"))
        #expect(FileManager.default.fileExists(atPath: copy + "/Tests/LoopyTransportTests/LoopyPluginTests.swift"))

        let build = try run(["swift", "build", "--build-tests"], in: copy)
        #expect(build.status == 0, "\(build.output.suffix(4_000))")
        let test = try run(["swift", "test", "--skip-build", "--filter", "LoopyTransportTests"], in: copy)
        #expect(test.status == 0, "\(test.output.suffix(4_000))")
        #expect(test.output.contains("Test run with 1 test"), "\(test.output.suffix(2_000))")
        // `peerbench list` shows the new plugin: it is registered in the executable.
        let list = try run([".build/debug/peerbench", "list"], in: copy)
        #expect(list.output.contains("loopy"), "\(list.output.suffix(2_000))")

        let again = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "Loopy"], in: copy)
        #expect(again.status != 0)
        #expect(again.output.contains("Sources/LoopyTransport already exists"))
    }
}
