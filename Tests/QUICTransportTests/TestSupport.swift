import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import QUICTransport
import TransportTestSupport

/// The plugin made from matrix-style options, unknown keys rejected like the registry does.
func makePlugin(_ options: KeyValuePairs<String, JSONValue> = [:]) throws -> QUICPlugin {
    let reader = try PluginOptions(.object(JSONObject(options)), path: JSONPath.root)
    let plugin = try QUICPlugin(options: reader)
    try reader.finish()
    return plugin
}

/// The repository's `certs/` directory.
let certsDirectory = packageRoot + "/certs"

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("peerbench-quic-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs a program and returns its exit status and combined output.
@discardableResult
func run(_ program: String, _ args: [String], currentDirectory: URL? = nil) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = args
    if let currentDirectory { p.currentDirectoryURL = currentDirectory }
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Runs `body`, failing if it takes longer than `seconds`.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw TransportError("timed out after \(seconds) s")
        }
        group.cancelAll()
        return value
    }
}

/// Runs one loopback cell of `plugin` and waits for its server to finish too (stopped
/// when the client fails).
func runLoopbackCell(_ plugin: QUICPlugin, payload: Payload?, probes: Int) async throws -> TransportMeasurement {
    let cell = CellContext.loopback(payload: payload, rttProbes: probes)
    let server = try await plugin.startServer(cell)
    do {
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    } catch {
        server.stop()
        throw error
    }
}
