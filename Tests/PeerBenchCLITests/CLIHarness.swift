import Foundation
import TransportTestSupport

/// Runs the built `peerbench` binary and captures its output, as a user would.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    static let packageRoot = TransportTestSupport.packageRoot

    /// The peerbench binary next to the test bundle (swift test builds both into one folder).
    static var binary: String { PeerbenchBinary.path }

    @discardableResult
    /// `environment`: variables set for the child on top of this process's.
    static func run(_ args: [String], cwd: String? = nil, environment: [String: String] = [:]) throws -> CLIResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: cwd ?? packageRoot)
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, b in b } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !reader.isFinished { usleep(1_000) }
        return CLIResult(
            status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("peerbench-cli-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func records(in dir: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: dir + "/records.jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }
}
