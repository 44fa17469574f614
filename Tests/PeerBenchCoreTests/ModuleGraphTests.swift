import Foundation
import Testing

/// The layering of docs/ARCHITECTURE.md, as the compiler sees it: scripts/module-graph.py
/// reads Package.swift's dependencies and every `import` of Sources/ and applies the rules
/// (which module may import which of ours; GnuTLS's C API in GnuTLSSupport alone).
@Suite struct ModuleGraphTests {
    static let script = packageRoot + "/scripts/module-graph.py"

    /// The script's exit status and its standard output and error.
    static func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both before waiting: a full pipe would stop the script.
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test func noModuleImportsOneItMustNot() throws {
        let r = try Self.run(["--check"])
        #expect(r.status == 0, "scripts/module-graph.py --check:\n\(r.err)")
        let plugin = r.out.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(plugin.contains("PeerBenchPlugin PeerBenchJSON, PeerBenchSystem"), "the contract imports JSON and System only:\n\(r.out)")
    }

    @Test func architectureDocShowsTheGraphAsItIs() throws {
        let r = try Self.run(["--doc", packageRoot + "/docs/ARCHITECTURE.md"])
        #expect(r.status == 0, "\(r.err)\nthe graph now:\n\(r.out)")
    }

    /// The rules bite: a package whose transport sees the run core, whose udp plugin
    /// imports GnuTLS's C module, whose quic plugin calls GnuTLS through ngtcp2's
    /// header and whose contract imports the stream workloads is refused, each named.
    @Test func aBrokenLayeringIsRefusedByName() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pb-module-graph-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = [
            "Package.swift": """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(name: "Broken", targets: [
                .target(name: "PeerBenchJSON"),
                .target(name: "PeerBenchSystem", dependencies: ["PeerBenchJSON"]),
                .target(name: "PeerBenchPlugin", dependencies: ["PeerBenchJSON", "PeerBenchSystem", "PeerBenchStreams"]),
                .target(name: "PeerBenchStreams", dependencies: ["PeerBenchJSON"]),
                .target(name: "PeerBenchCore", dependencies: ["PeerBenchPlugin"]),
                .systemLibrary(name: "CGnuTLS"),
                .systemLibrary(name: "CNgtcp2"),
                .target(name: "TCPTransport", dependencies: ["PeerBenchPlugin", "PeerBenchCore"]),
                .target(name: "UDPTransport", dependencies: ["PeerBenchPlugin", "CGnuTLS"]),
                .target(name: "QUICTransport", dependencies: ["PeerBenchPlugin", "CNgtcp2"]),
            ])
            """,
            "Sources/PeerBenchJSON/A.swift": "public struct A {}\n",
            "Sources/PeerBenchSystem/A.swift": "import PeerBenchJSON\n",
            "Sources/PeerBenchPlugin/A.swift": "import PeerBenchJSON\nimport PeerBenchStreams\n",
            "Sources/PeerBenchStreams/A.swift": "import PeerBenchJSON\n",
            "Sources/PeerBenchCore/A.swift": "import PeerBenchPlugin\n",
            "Sources/TCPTransport/A.swift": "import PeerBenchPlugin\n@testable import PeerBenchCore\n",
            "Sources/UDPTransport/A.swift": "import PeerBenchPlugin\ninternal import CGnuTLS\n// import PeerBenchCore (a comment)\n",
            "Sources/QUICTransport/A.swift": "import CNgtcp2\nlet label = \"gnutls_rnd\"\nfunc f() { _ = gnutls_rnd(GNUTLS_RND_NONCE, nil, 0) }\n",
        ]
        for (path, text) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let r = try Self.run(["--root", root, "--check"])
        #expect(r.status == 1)
        let refused = [
            "TCPTransport imports PeerBenchCore: only the executable and the analysis see the run core",
            "UDPTransport imports CGnuTLS: GnuTLS's C API is GnuTLSSupport's alone",
            "PeerBenchPlugin imports PeerBenchStreams: byte-stream framing is for stream transports, not the contract",
            "QUICTransport uses GnuTLS's gnutls_rnd (Sources/QUICTransport/A.swift): only GnuTLSSupport calls GnuTLS",
        ]
        for line in refused { #expect(r.err.contains(line), "\(line)\nnot in:\n\(r.err)") }
        // Neither the comment nor the string literal counts as a use.
        #expect(!r.err.contains("UDPTransport imports PeerBenchCore"), "\(r.err)")
        #expect(r.err.components(separatedBy: "gnutls_rnd").count == 2, "\(r.err)")
    }
}
