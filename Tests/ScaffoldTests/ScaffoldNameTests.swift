import Foundation
import Testing
import TransportScaffold

/// The scaffold's checks, on a small stand-in package tree (fast; no build).
@Suite(.timeLimit(.minutes(20))) struct ScaffoldNameTests {
    /// The real Package.swift and RegisteredPlugins.swift in a temporary tree.
    func makeTree() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-scaffold-\(UUID())").path
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/Sources/peerbench", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/Sources/TLSTransport", withIntermediateDirectories: true)
        try fm.copyItem(atPath: packageRoot + "/Package.swift", toPath: dir + "/Package.swift")
        try fm.copyItem(
            atPath: packageRoot + "/Sources/peerbench/RegisteredPlugins.swift", toPath: dir + "/Sources/peerbench/RegisteredPlugins.swift")
        return dir
    }

    /// Every file under `dir` with its contents, to show nothing changed.
    func snapshot(_ dir: String) -> [String: String] {
        var out: [String: String] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: dir)! {
            out[path] = (try? String(contentsOfFile: dir + "/" + path, encoding: .utf8)) ?? "<dir>"
        }
        return out
    }

    @Test func derivesTheNames() throws {
        let n = try TransportName("sctp2")
        #expect(n.typeStem == "Sctp2")
        #expect(n.module == "Sctp2Transport")
        #expect(n.testModule == "Sctp2TransportTests")
        #expect(n.pluginType == "Sctp2Plugin")
        #expect(n.pluginName == "sctp2")
        #expect(try TransportName("MyProto").pluginName == "myproto")
    }

    @Test(arguments: ["", "2fast", "my-proto", "my_proto", "Grüße", "a b", "Echo.swift", "EchoTransport", "echoplugin"])
    func refusesInvalidNames(_ raw: String) throws {
        #expect(throws: ScaffoldError.self) { _ = try TransportName(raw) }
    }

    @Test func invalidNameSaysWhatIsAllowed() {
        #expect(
            throws: ScaffoldError(
                "\"my-proto\" is not a valid name: use a letter followed by letters or digits (a Swift identifier without underscores), e.g. Echo or Sctp2"
            )
        ) {
            _ = try TransportName("my-proto")
        }
    }

    @Test(arguments: ["tls", "TLS", "tcp", "exec", "quic", "uwb"])
    func refusesTakenNamesAndChangesNothing(_ raw: String) throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = snapshot(dir)
        let error = #expect(throws: ScaffoldError.self) { try Scaffold(packageDirectory: dir).apply(TransportName(raw)) }
        #expect(error?.description.contains("taken") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(snapshot(dir) == before)
    }

    @Test func refusesAnExistingModuleFolderWhateverItsCase() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/Sources/SctpTransport", withIntermediateDirectories: true)
        let before = snapshot(dir)
        #expect(throws: ScaffoldError("Sources/SctpTransport already exists: the name Sctp is taken; pick another")) {
            try Scaffold(packageDirectory: dir).apply(TransportName("Sctp"))
        }
        #expect(throws: ScaffoldError.self) { try Scaffold(packageDirectory: dir).apply(TransportName("SCTP")) }
        #expect(snapshot(dir) == before)
    }

    @Test func refusesAManifestWithoutItsMarkersAndChangesNothing() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let manifest = try String(contentsOfFile: dir + "/Package.swift", encoding: .utf8)
        try manifest.replacingOccurrences(of: "// new-transport: new transport targets go above this line", with: "")
            .write(toFile: dir + "/Package.swift", atomically: true, encoding: .utf8)
        let before = snapshot(dir)
        let error = #expect(throws: ScaffoldError.self) { try Scaffold(packageDirectory: dir).apply(TransportName("Echo")) }
        #expect(error?.description.hasPrefix("Package.swift has no line") == true)
        #expect(snapshot(dir) == before, "not even the new source files were written")
    }

    @Test func writesTheModuleTestTargetsAndRegistration() throws {
        let dir = try makeTree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let written = try Scaffold(packageDirectory: dir).apply(TransportName("Echo"))
        #expect(
            written == [
                "Sources/EchoTransport/EchoPlugin.swift", "Tests/EchoTransportTests/EchoPluginTests.swift",
                "Package.swift", "Sources/peerbench/RegisteredPlugins.swift",
            ])
        let manifest = try String(contentsOfFile: dir + "/Package.swift", encoding: .utf8)
        #expect(
            manifest.contains(
                #".target(name: "EchoTransport", dependencies: ["PeerBenchPlugin", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchSockets", "PeerBenchStreams"], swiftSettings: strict),"#
            ))
        #expect(
            manifest.contains(
                #".testTarget(name: "EchoTransportTests", dependencies: ["EchoTransport", "PeerBenchPlugin", "TransportTestSupport"]),"#))
        #expect(manifest.contains("\"EchoTransport\",\n                // new-transport: new transport modules go above this line"))
        let registry = try String(contentsOfFile: dir + "/Sources/peerbench/RegisteredPlugins.swift", encoding: .utf8)
        #expect(registry.contains("import EchoTransport\n"))
        #expect(registry.contains("    EchoPlugin.self,\n]"))
        let source = try String(contentsOfFile: dir + "/Sources/EchoTransport/EchoPlugin.swift", encoding: .utf8)
        #expect(source.contains(#"name: "echo","#))
        #expect(!source.contains("__"), "every placeholder filled")
        // A second run refuses: the name is now taken.
        #expect(throws: ScaffoldError.self) { try Scaffold(packageDirectory: dir).apply(TransportName("echo")) }
    }
}

/// The package root, found from this file's location.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
