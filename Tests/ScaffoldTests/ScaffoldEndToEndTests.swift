import Foundation
import Testing

/// `swift package new-transport` for real, in a temporary copy of this package: the
/// plugin runs, the result builds (the generated module against the contract modules,
/// its registration in `peerbench`), and the generated test passes.
///
/// The copy reuses the package's own build products. Every path SwiftPM and the
/// compiler record in `.build` is absolute, so a copy elsewhere would compile the whole
/// package again (minutes). Instead each command runs in a mount namespace of its own
/// (`unshare --mount`) where the copy is bind-mounted over the package's folder: the
/// copy's paths are the package's, its `.build` is the package's (copied with
/// nanosecond mtimes, which SwiftPM compares), and only what the scaffold added or
/// edited compiles: the new module and its test, `peerbench`'s registration, the test
/// bundle's link. The package's own folder and `.build` are never written. Where no
/// mount namespace can be made (not root and no user namespaces) the copy is built
/// from scratch at its own path, as before (slow: a full build); the test says which.
/// PEERBENCH_SKIP_SCAFFOLD_E2E=1 skips it while iterating locally. CI runs it.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ScaffoldEndToEndTests {
    static let skip = ProcessInfo.processInfo.environment["PEERBENCH_SKIP_SCAFFOLD_E2E"] == "1"

    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Runs a command with its output (stdout + stderr) captured to a file, so a long
    /// build never blocks on a full pipe.
    static func launch(_ args: [String], in dir: String) throws -> Outcome {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pb-scaffold-\(UUID().uuidString).log").path
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

    /// How a command sees the copy at the package's own path: `unshare` with a private
    /// mount namespace (root), or in a user namespace of its own (anyone, where the
    /// kernel allows it); nil when neither works here.
    static let overlay: [String]? = {
        let candidates =
            getuid() == 0
            ? [["unshare", "--mount", "--propagation", "private"]]
            : [["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]]
        for c in candidates {
            if let probe = try? launch(c + ["sh", "-c", "mount --bind \"$0\" \"$0\"", packageRoot], in: "/"), probe.status == 0 { return c }
        }
        return nil
    }()

    @Test(.enabled(if: !skip, "PEERBENCH_SKIP_SCAFFOLD_E2E=1"), .timeLimit(.minutes(30)))
    func newTransportBuildsAndPassesItsTest() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("pb-scaffold-e2e-\(UUID())").path
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let overlay = Self.overlay
        let reuse = overlay != nil && FileManager.default.fileExists(atPath: packageRoot + "/.build")
        // Commands run in the copy: at the package's path over a bind mount, or at its own.
        let dir = reuse ? packageRoot : copy
        func run(_ args: [String]) throws -> Outcome {
            guard reuse, let overlay else { return try Self.launch(args, in: copy) }
            return try Self.launch(
                overlay + ["sh", "-c", "mount --bind \"$0\" \"$1\" && cd \"$1\" && shift && exec \"$@\"", copy, packageRoot] + args, in: "/")
        }
        // POSIX tar keeps nanosecond mtimes, which SwiftPM's build database compares.
        let exclude = (reuse ? [] : ["--exclude=./.build"]) + ["--exclude=./.git", "--exclude=./.swiftpm"]
        let tar = try Self.launch(
            ["sh", "-c", "tar -C \"$0\" --format=posix \(exclude.joined(separator: " ")) -cf - . | tar -xpf -", packageRoot], in: copy)
        #expect(tar.status == 0, "\(tar.output)")
        let manifestBefore = try String(contentsOfFile: copy + "/Package.swift", encoding: .utf8)
        let packageManifest = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)

        // Refusals first: they must leave the copy untouched.
        let bad = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "my-proto"])
        #expect(bad.status != 0)
        #expect(bad.output.contains("\"my-proto\" is not a valid name"), "\(bad.output.suffix(2_000))")
        let taken = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "tls"])
        #expect(taken.status != 0)
        #expect(taken.output.contains("is taken"), "\(taken.output.suffix(2_000))")
        #expect(try String(contentsOfFile: copy + "/Package.swift", encoding: .utf8) == manifestBefore)
        #expect(!FileManager.default.fileExists(atPath: copy + "/Sources/MyprotoTransport"))

        let made = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "Loopy"])
        #expect(made.status == 0, "\(made.output.suffix(3_000))")
        #expect(made.output.contains("created the \"loopy\" transport"))
        #expect(FileManager.default.fileExists(atPath: copy + "/Sources/LoopyTransport/LoopyPlugin.swift"))
        #expect(FileManager.default.fileExists(atPath: copy + "/Tests/LoopyTransportTests/LoopyPluginTests.swift"))
        // What it generates passes the formatter that test.sh runs over Sources/ and Tests/.
        let lint = try run([
            "swift", "format", "lint", "--strict", "Sources/LoopyTransport/LoopyPlugin.swift", "Tests/LoopyTransportTests/LoopyPluginTests.swift",
        ])
        #expect(lint.status == 0 && lint.output.isEmpty, "\(lint.output.suffix(2_000))")

        // The layer check of scripts/test.sh too: the generated module imports only what it declares.
        let build = try run(["swift", "build", "--build-tests", "--explicit-target-dependency-import-check", "error"])
        #expect(build.status == 0, "\(build.output.suffix(4_000))")
        let compiled = Set(
            build.output.split(separator: "\n").compactMap { line -> String? in
                guard let r = line.range(of: "] Compiling ") else { return nil }
                return line[r.upperBound...].split(separator: " ").first.map(String.init)
            }
        ).sorted()
        print(
            "scaffold build in \(reuse ? "the package's path, reusing its .build" : "the copy's own path, from scratch") (\(dir)): compiled \(compiled)"
        )
        #expect(compiled.contains("LoopyTransport"), "the generated module was compiled: \(compiled)")
        let test = try run(["swift", "test", "--skip-build", "--filter", "LoopyTransportTests"])
        #expect(test.status == 0, "\(test.output.suffix(4_000))")
        #expect(test.output.contains("Test run with 1 test"), "\(test.output.suffix(2_000))")
        // `peerbench list` shows the new plugin: it is registered in the executable.
        let list = try run([dir + "/.build/debug/peerbench", "list"])
        #expect(list.output.contains("loopy"), "\(list.output.suffix(2_000))")

        let again = try run(["swift", "package", "--allow-writing-to-package-directory", "new-transport", "Loopy"])
        #expect(again.status != 0)
        #expect(again.output.contains("Sources/LoopyTransport already exists"))
        // The package itself was never touched: the scaffold wrote only into the copy.
        #expect(try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8) == packageManifest)
        #expect(!FileManager.default.fileExists(atPath: packageRoot + "/Sources/LoopyTransport"))
    }
}
