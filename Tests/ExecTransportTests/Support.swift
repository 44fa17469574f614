import ExecTransport
import Foundation
import Logging
import PeerBenchCore

/// Loopback link: every environment resolves to an unimpaired, connected link.
struct LoopbackLinkModel: LinkModel {
    var builtInEnvironments: [String] { ["loopback"] }
    func validateProfile(_ profile: JSONValue, path: JSONPath) -> [InputProblem] { [] }
    func resolve(environment: String, profile: JSONValue?, distance: Double?, distanceLabel: String) throws -> ResolvedLink {
        ResolvedLink(environment: environment, distanceMeters: distance ?? 1, distanceLabel: distanceLabel)
    }
    func describe() -> [String] { [] }
}

/// The package root, found from this file's location.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// Runs `transports` (a JSON array text) through the real runner on loopback and
/// returns the records, as `peerbench run --link none` would write them.
func runMatrix(transports: String, counts: String = "[1000]", sizes: String = "[1024]", probes: Int = 20,
               timeout: Double = 30) async throws -> [JSONValue] {
    let text = """
    {"rttProbes": \(probes), "transports": \(transports),
     "matrix": {"environments": ["loopback"], "distances": [1], "payloads": {"counts": \(counts), "sizes": \(sizes)}}}
    """
    let registry = PluginRegistry([ExecPlugin.self])
    let matrix = try MatrixLoader(registry: registry, linkModel: LoopbackLinkModel()).parse(Array(text.utf8))
    let plan = try RunPlan(matrix: matrix, options: RunOptions(matrixFile: "test.json", commandLine: [], cellTimeoutSeconds: timeout),
                           linkModel: LoopbackLinkModel())
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-exec-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let dir = try RunDirectory.create(path, for: plan.matrix)
    let runner = Runner(registry: registry, testbed: LoopbackTestbed(), logger: Logger(label: "test"))
    _ = try await runner.run(plan, runID: "test", into: dir, observer: nil)
    return dir.readRecords().records
}

/// A directory of small shell scripts acting as external plugins.
struct ScriptDirectory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-exec-scripts-\(UUID())").path

    init(_ scripts: [String: String]) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, body) in scripts {
            let file = path + "/" + name
            try ("#!/bin/sh\n" + body + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file)
        }
    }

    /// A transports array entry using these scripts.
    func transport(label: String, server: [String]?, client: [String], extra: String = "") -> String {
        func list(_ a: [String]) -> String { "[" + a.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        let s = server.map { "\"server\": \(list($0)), " } ?? ""
        return #"{"plugin": "exec", "label": "\#(label)", "options": {\#(s)"client": \#(list(client)), "workingDirectory": "\#(path)"\#(extra)}}"#
    }
}
