import Foundation
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Runs iproute2's `ip` and `tc`. Namespaces are created and configured with them so
/// that what PeerBench does can be repeated and inspected by hand (`ip netns`,
/// `ip -n NS addr`, `tc -n NS -s qdisc`).
enum IPCommand {
    static let path: String = find("ip")
    static let tcPath: String = find("tc")

    private static func find(_ tool: String) -> String {
        for dir in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where access("\(dir)/\(tool)", X_OK) == 0 { return "\(dir)/\(tool)" }
        return "/usr/sbin/\(tool)"
    }

    /// Runs `ip ARGS`; throws `LinkSetupError` with the command and its error output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        try run(path, "ip", arguments)
    }

    /// Runs `tc ARGS` (traffic control, the sender-side shaper); same errors as `run`.
    @discardableResult
    static func tc(_ arguments: [String]) throws -> String {
        try run(tcPath, "tc", arguments)
    }

    /// Runs several `tc` commands (each without the leading `tc`) in one process in
    /// `namespace`, through a batch file; stops at the first that fails.
    static func tcBatch(_ commands: [String], namespace: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "peerbench-tc-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).batch")
        try commands.joined(separator: "\n").appending("\n").write(to: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try tc(["-n", namespace, "-batch", file.path])
    }

    private static func run(_ path: String, _ tool: String, _ arguments: [String]) throws -> String {
        // Not Foundation's Process: its wait added 0 to 0.3 s to a cell's set-up at
        // random (ChildProcess says why).
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(path, arguments)
        } catch {
            throw LinkSetupError("cannot run \(path) (iproute2): \(error); install iproute2 or use --link none")
        }
        guard result.succeeded else {
            let text = String(decoding: result.errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            var message = "`\(tool) \(arguments.joined(separator: " "))` failed: \(text)"
            if let signal = result.signal { message += " (ended by signal \(signal))" }
            if text.contains("Operation not permitted") || text.contains("Permission denied") {
                message += "; " + LinkSetupError.privilegeHint
            }
            throw LinkSetupError(message)
        }
        return String(decoding: result.output, as: UTF8.self)
    }
}
