import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// The external server command of one cell. It must exit by itself once its client is
/// done (within `graceSeconds`); a non-zero exit fails the cell with its stderr quoted.
final class ExecServer: TransportServer, Sendable {
    let address: SocketAddress
    /// The server's ready line: the client's cell document carries it as `server.ready`.
    let hello: JSONObject
    private let process: ExternalProcess?
    private let graceSeconds: Double
    private let stopped = Mutex(false)
    /// The server's cell document, removed once the server has ended.
    private let documentPath: String?

    init(process: ExternalProcess?, address: SocketAddress, hello: JSONObject, graceSeconds: Double, documentPath: String?) {
        self.process = process
        self.address = address
        self.hello = hello
        self.graceSeconds = graceSeconds
        self.documentPath = documentPath
    }

    func finish() async throws {
        defer { if let documentPath { try? FileManager.default.removeItem(atPath: documentPath) } }
        guard let process else { return }
        let grace = graceSeconds
        let status = try await BlockingThread.run(name: "exec-server-finish") {
            process.waitForExit(until: MonotonicClock.now() + UInt64(grace * 1e9))
        }
        if stopped.withLock({ $0 }) { return }
        let command = process.command.display
        guard let status else {
            process.kill()
            _ = try await BlockingThread.run(name: "exec-server-reap") { process.waitForExit(until: MonotonicClock.now() + 2_000_000_000) }
            throw TransportError(
                "exec: the server command \(command) was still running \(ExecPlugin.format(grace)) s after the client "
                    + "finished; killed it (a server serves one session, then exits)" + process.quotedOutput())
        }
        if status != 0 && !process.wasKilled {
            throw TransportError("exec: the server command \(command) \(ExecPlugin.describe(status))" + process.quotedOutput())
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
        process?.kill()
    }
}
