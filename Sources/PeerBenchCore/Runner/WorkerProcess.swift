import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
    import PeerBenchJSON
    import PeerBenchSystem
    import PeerBenchPlugin
#endif

/// The supervising side of process isolation: one long-lived worker process (the
/// same executable, started with `arguments`) runs cells sent over a pipe.
///
/// Why a long-lived worker rather than a process per cell: starting a Swift
/// executable costs tens of milliseconds, a pipe round trip well under one; the
/// worker is replaced only after it dies. What isolation buys: a cell that traps or
/// segfaults kills the worker, not the run, and becomes a `failed` record naming the
/// signal; a cell that ignores its deadline is killed (SIGKILL) after the grace
/// period instead of leaking a thread into the next cell.
///
/// The worker never outlives the runner: only the runner holds the write end of the
/// worker's request pipe, so when the runner dies (even by SIGKILL) the kernel closes
/// it and the worker's lifeline thread (`CellWorker.exitWhenRunnerIsGone`) sees the
/// hang-up and exits. (PR_SET_PDEATHSIG would fire when the spawning *thread* ends,
/// and the runner spawns from whichever thread runs the cell.)
public final class WorkerProcess: Sendable {
    /// What came back for one cell.
    public enum Reply: Sendable {
        case outcome(PluginSession.Outcome)
        /// The worker died: how, and the last lines it wrote to stderr.
        case died(String)
        /// No reply by the hard deadline; the worker was killed.
        case unresponsive
    }

    let executable: String
    let arguments: [String]

    /// The running worker, if any.
    private struct State {
        var pid: pid_t = 0
        var requestFD: Int32 = -1
        var replyReader: LineReader?
        var stderrTail: StderrTail?
        /// `killNow` came while no worker ran (a stop between arming and spawning):
        /// no worker may start any more.
        var stopped = false
    }
    private let state = Mutex(State())

    /// - Parameters:
    ///   - executable: path of the program to start; defaults to this process's own executable.
    ///   - arguments: arguments that make it serve cells (`["cell-worker"]` for peerbench).
    public init(executable: String = WorkerProcess.currentExecutable, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    deinit {
        killNow()
        _ = reap(kill: false, note: nil)
    }

    /// This process's own executable image: /proc/self/exe, which a child started from it
    /// runs even when the file it came from has been rebuilt or deleted since: a worker
    /// started later from the rebuilt file would be another version (the likely cause,
    /// not proven, of a run of 2026-12-01 whose quic cells all failed after its release
    /// build was rebuilt under it). argv[0] where /proc is missing.
    public static var currentExecutable: String {
        FileManager.default.isExecutableFile(atPath: "/proc/self/exe") ? "/proc/self/exe" : CommandLine.arguments[0]
    }

    /// The file `executable` names, for messages and argv[0] (/proc/self/exe names no file).
    private var executableFile: String {
        guard executable == "/proc/self/exe" else { return executable }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Sends one cell and waits for its outcome, at most `hardTimeout` seconds.
    public func run(_ request: CellRequest, hardTimeout: Double) async -> Reply {
        do { try startIfNeeded() } catch {
            let named = executableFile == executable ? executable : "\(executable) (\(executableFile))"
            return .died("cannot start the worker process \(named): \(error)")
        }
        let (fd, reader) = state.withLock { ($0.requestFD, $0.replyReader!) }
        let line = Array((request.json.compactText + "\n").utf8)
        let deadline = MonotonicClock.now() + UInt64(hardTimeout * 1e9)
        let got: Result<[UInt8]?, any Error> =
            (try? await BlockingThread.run(name: "worker-wait") {
                Result {
                    try writeAll(fd, line, function: "write(worker request)")
                    return try reader.next(until: deadline)
                }
            }) ?? .failure(TransportError("worker wait failed"))
        switch got {
        case .success(let bytes?):
            if let v = try? JSONParser.parse(bytes), let outcome = try? PluginSession.Outcome(json: v) { return .outcome(outcome) }
            return .died(reap(kill: true, note: "the worker sent a reply that is not understood"))
        case .success(nil):
            return .died(reap(kill: false, note: nil))
        case .failure(let e as ReadTimedOut):
            _ = e
            _ = reap(kill: true, note: nil)
            return .unresponsive
        case .failure(let e):
            return .died(reap(kill: true, note: "\(e)"))
        }
    }

    /// Kills the worker at once (an interruption, a cell to abandon). Only sends the
    /// signal: the cell waiting for it sees the pipe close and collects the process.
    /// Called before the worker exists (a stop during its start), it keeps any worker
    /// from starting: the cell then ends at once instead of running to its deadline.
    func killNow() {
        let p = state.withLock { s in
            if s.pid == 0 { s.stopped = true }
            return s.pid
        }
        if p > 0 { _ = try? syscall("kill(worker)") { kill(p, SIGKILL) } }
    }

    /// Ends the worker politely: closing its request pipe makes it return.
    public func finish() {
        let fd = state.withLock { s -> Int32 in
            defer { s.requestFD = -1 }
            return s.requestFD
        }
        if fd >= 0 { _ = try? syscall("close(worker request)") { close(fd) } }
        _ = reap(kill: false, note: nil)
    }

    private func startIfNeeded() throws {
        try state.withLock { (s: inout State) throws in
            guard s.pid == 0 else { return }
            guard !s.stopped else { throw TransportError("the run is stopping; no worker is started") }
            // A worker that died between cells must show up as EPIPE on the next request,
            // not as a SIGPIPE that ends the runner.
            signal(SIGPIPE, SIG_IGN)
            // Close-on-exec from their creation, so no other child (a plugin's helper
            // program) holds a pipe open: the runner must be the only holder of the
            // request pipe's write end, the worker takes its closing as the runner's
            // death (see the type's comment).
            let req = try ChildProcess.pipe(), rep = try ChildProcess.pipe(), err = try ChildProcess.pipe()
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, req.read, CellWorker.requestFD)
            posix_spawn_file_actions_adddup2(&actions, 2, 1)  // stray prints go to our log, not the protocol
            posix_spawn_file_actions_adddup2(&actions, err.write, 2)
            posix_spawn_file_actions_adddup2(&actions, rep.write, CellWorker.replyFD)
            ChildProcess.inheritOnly(upTo: CellWorker.replyFD, in: &actions)
            var attr = posix_spawnattr_t()
            posix_spawnattr_init(&attr)
            defer { posix_spawnattr_destroy(&attr) }
            // Own process group: a Ctrl-C at the terminal reaches only the runner, which
            // decides what happens to the running cell.
            ChildProcess.resetSignals(in: &attr, addingFlags: POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attr, 0)
            var env = ProcessInfo.processInfo.environment
            // A crash should end the worker at once, not after minutes of symbolication.
            env["SWIFT_BACKTRACE"] = "enable=no"
            // argv[0] names the file (for ps and the worker's own messages), the path run is `executable`.
            let argv = ([executableFile] + arguments).map { strdup($0) } + [nil]
            let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                argv.forEach { free($0) }
                envp.forEach { free($0) }
            }
            var child: pid_t = 0
            let rc = posix_spawn(&child, executable, &actions, &attr, argv, envp)
            close(req.read)
            close(rep.write)
            close(err.write)
            guard rc == 0 else {
                close(req.write)
                close(rep.read)
                close(err.read)
                throw SystemError("posix_spawn(\(executable))", errno: rc)
            }
            s.pid = child
            s.requestFD = req.write
            s.replyReader = LineReader(fd: rep.read)
            s.stderrTail = StderrTail(fd: err.read)
        }
    }

    /// Waits for the worker to exit (killing it first if asked) and describes how it ended.
    private func reap(kill doKill: Bool, note: String?) -> String {
        let (p, fd, reader, tail) = state.withLock { s -> (pid_t, Int32, LineReader?, StderrTail?) in
            defer { s = State(stopped: s.stopped) }
            return (s.pid, s.requestFD, s.replyReader, s.stderrTail)
        }
        guard p > 0 else { return note ?? "the worker process had already ended" }
        if doKill { _ = try? syscall("kill(worker)") { kill(p, SIGKILL) } }
        if fd >= 0 { _ = try? syscall("close(worker request)") { close(fd) } }
        var status: Int32 = 0
        _ = try? syscall("waitpid(worker)") { waitpid(p, &status, 0) }
        if let reader { _ = try? syscall("close(worker reply)") { close(reader.fd) } }
        let output = tail?.finish() ?? ""
        var text = WorkerProcess.describe(status: status)
        if let note { text += " (\(note))" }
        if !output.isEmpty { text += "; its last output: \(output)" }
        return text
    }

    /// "killed by signal SIGSEGV (segmentation fault)" / "exited with status 3".
    public static func describe(status: Int32) -> String {
        let sig = status & 0x7f
        if sig != 0 && sig != 0x7f {
            return "the cell crashed its worker process: killed by signal \(signalName(sig)) (\(String(cString: strsignal(sig))))"
        }
        return "the worker process exited with status \((status >> 8) & 0xff) in the middle of the cell"
    }

    static func signalName(_ s: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGPIPE: "SIGPIPE",
            SIGSYS: "SIGSYS", SIGHUP: "SIGHUP",
        ]
        return names[s] ?? "signal \(s)"
    }
}

struct ReadTimedOut: Error {}

extension LineReader {
    /// The next line, waiting at most until `deadline` (monotonic ns); nil at end of input.
    func next(until deadline: UInt64) throws -> [UInt8]? {
        while true {
            if hasBufferedLine { return try next() }
            let now = MonotonicClock.now()
            guard now < deadline else { throw ReadTimedOut() }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(Double(deadline - now) / 1e6 + 1, 1_000_000))
            let n = try syscall("poll(worker reply)") { poll(&p, 1, ms) }
            if n == 0 { continue }
            return try next()
        }
    }
}

/// Drains the worker's stderr on a thread of its own: forwards it to ours (plugin
/// logs stay visible) and keeps the last lines to explain a crash.
final class StderrTail: Sendable {
    private let tail = Mutex<[UInt8]>([])
    private let done = DispatchSemaphore(value: 0)

    init(fd: Int32) {
        let thread = Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let got = try? buf.withUnsafeMutableBytes { b in try syscall("read(worker stderr)") { read(fd, b.baseAddress, b.count) } }
                guard let n = got, n > 0 else { break }
                let chunk = Array(buf[..<n])
                // Forwarding is best effort: a closed stderr must not stop the draining.
                _ = chunk.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
                tail.withLock { tail in
                    tail += chunk
                    if tail.count > 2048 { tail.removeFirst(tail.count - 2048) }
                }
            }
            close(fd)
            done.signal()
        }
        thread.name = "worker-stderr"
        thread.start()
    }

    /// Waits (briefly) for the pipe to close and returns the last lines, one line of text.
    func finish() -> String {
        _ = done.wait(timeout: .now() + 1)
        let text = tail.withLock { String(decoding: $0, as: UTF8.self) }
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // A Swift trap prints "file:line: Fatal error: message" and then a stack trace;
        // the message is what explains the crash.
        if let fatal = lines.last(where: { $0.contains("Fatal error:") }) { return String(fatal.prefix(400)) }
        return lines.suffix(3).joined(separator: " | ").prefix(400).description
    }
}
