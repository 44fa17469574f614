import Foundation
public import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// The worker side of process isolation: runs cells one at a time for a supervising
/// runner. File descriptors (set up by `WorkerProcess`): 0 = requests, 3 = replies,
/// one JSON object per line each; 1 and 2 are for logs only, so a plugin that prints
/// cannot corrupt the protocol.
public enum CellWorker {
    static let requestFD: Int32 = 0
    static let replyFD: Int32 = 3

    /// Serves requests until the runner closes the request pipe. A plugin crash ends
    /// this process — which is the point: the runner records it and starts a new worker.
    public static func serve(registry: PluginRegistry, logger: Logger) async throws {
        // As in the runner: a write to a socket the deadline has shut (GnuTLS sends
        // without MSG_NOSIGNAL) must be an EPIPE error, which ends the cell as
        // `timeout`, not a SIGPIPE that kills the worker and records the cell `failed`.
        signal(SIGPIPE, SIG_IGN)
        exitWhenRunnerIsGone()
        let reader = LineReader(fd: requestFD)
        while let line = try await BlockingThread.run(name: "worker-read", { try reader.next() }) {
            let outcome: PluginSession.Outcome
            do {
                let request = try CellRequest(json: try JSONParser.parse(line))
                let session = PluginSession(
                    registry: registry, transport: request.transport, cell: request.cell,
                    timeoutSeconds: request.timeoutSeconds,
                    cellTimeoutSeconds: request.cellTimeoutSeconds, logger: logger)
                outcome = await session.run(client: request.client, server: request.server, link: request.link, source: request.source)
            } catch {
                outcome = .failed("\(error)")
            }
            let bytes = Array((outcome.json.compactText + "\n").utf8)
            try writeAll(replyFD, bytes, function: "write(worker reply)")
        }
    }
}

extension CellWorker {
    /// Starts the lifeline: a thread that ends this process as soon as the request
    /// pipe has no writer left, that is when the runner has closed it (between cells)
    /// or died (even by SIGKILL, mid-cell). Without it a worker whose runner was killed
    /// ran its cell to the deadline, kept sending into a resumed run's link and kept the
    /// killed run's namespaces alive.
    ///
    /// `poll` with no requested events still reports POLLHUP, so this never consumes a
    /// request the serving loop is waiting for.
    static func exitWhenRunnerIsGone() {
        let thread = Thread {
            var p = pollfd(fd: requestFD, events: 0, revents: 0)
            while true {
                let n = poll(&p, 1, -1)
                if n < 0 && errno == EINTR { continue }
                if n < 0 || p.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { break }
            }
            // _exit, not exit: no atexit handlers or flushing that could block on a
            // plugin's threads; the cell is abandoned either way.
            _exit(0)
        }
        thread.name = "worker-lifeline"
        thread.start()
    }
}

/// Reads newline-terminated lines from a file descriptor with blocking reads, for one
/// reader at a time. The bytes read past the last line are behind a lock, so that
/// reader may be any thread; the blocking read itself holds no lock.
final class LineReader: Sendable {
    let fd: Int32
    private let buffer = Mutex<[UInt8]>([])

    init(fd: Int32) { self.fd = fd }

    /// Whether a whole line is already read, so `next()` returns without reading.
    var hasBufferedLine: Bool { buffer.withLock { $0.contains(UInt8(ascii: "\n")) } }

    /// The next line without its newline; nil at end of input.
    func next() throws -> [UInt8]? {
        while true {
            let line = buffer.withLock { b -> [UInt8]? in
                guard let nl = b.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                defer { b.removeSubrange(...nl) }
                return Array(b[..<nl])
            }
            if let line { return line }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let n = try chunk.withUnsafeMutableBytes { b in try syscall("read(worker pipe)") { read(fd, b.baseAddress, b.count) } }
            if n == 0 { return nil }
            buffer.withLock { $0 += chunk[..<n] }
        }
    }
}
