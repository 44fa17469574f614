import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One external plugin command, started in its own process group (Foundation's
/// `Process` makes the child a group leader) so that killing the group also ends
/// whatever it started — `ip netns exec`, a shell, iperf3.
final class ExternalProcess: Sendable {
    let command: ExecCommand
    private let process = Process()
    let stdout = OutputCollector(limit: 4 << 20)
    let stderr = OutputCollector(limit: 256 << 10)
    private let killed = Mutex(false)
    private let exited = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - prefix: the endpoint's `commandPrefix` (`ip netns exec NAME`), empty on loopback.
    ///   - input: file given to the child as standard input (the cell document).
    init(_ command: ExecCommand, prefix: [String], input: String, environment: [String: String]) throws {
        self.command = command
        var argv = command.resolved
        if !prefix.isEmpty {
            guard let tool = ExecCommand.searchPath(prefix[0]) else {
                throw TransportError("exec: \(prefix[0]) was not found on PATH (needed to enter the endpoint's namespace)")
            }
            argv = [tool] + prefix.dropFirst() + argv
        }
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: command.workingDirectory)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        guard let stdin = FileHandle(forReadingAtPath: input) else {
            throw TransportError("exec: cannot open the cell document \(input)")
        }
        process.standardInput = stdin
    }

    /// Starts the child and the threads that read its output.
    func start() throws {
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.terminationHandler = { [exited] _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw TransportError("exec: could not start the \(command.role) command \(command.display): \(error)")
        }
        // The parent's copies of the write ends must close, or the readers never see EOF.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        stdout.start(reading: out.fileHandleForReading, name: "exec-\(command.role)-stdout")
        stderr.start(reading: err.fileHandleForReading, name: "exec-\(command.role)-stderr")
    }

    var pid: Int32 { process.processIdentifier }

    /// Waits for the child to exit until `deadline` (monotonic ns); its exit status, or
    /// nil if it is still running. A death by signal reads as 128 + signal, as in a shell.
    func waitForExit(until deadline: UInt64) -> Int32? {
        let now = MonotonicClock.now()
        let wait = deadline > now ? deadline - now : 0
        guard exited.wait(timeout: .now() + .nanoseconds(Int(min(wait, UInt64(Int.max))))) == .success else { return nil }
        exited.signal()  // stays signalled for later callers
        // Give the readers a moment to drain what the child wrote just before it exited.
        let drain = Date().addingTimeInterval(1)
        stdout.waitForEnd(until: drain)
        stderr.waitForEnd(until: drain)
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Whether `kill()` ended it (so an exit by SIGKILL is ours, not the plugin's fault).
    var wasKilled: Bool { killed.withLock { $0 } }

    /// Kills the whole process group; idempotent.
    func kill() {
        let first = killed.withLock { killed in
            defer { killed = true }
            return !killed
        }
        // Once reaped, the pid (and group id) may belong to someone else: leave it alone.
        guard first, process.processIdentifier > 0, process.isRunning else { return }
        _ = Glibc.kill(-process.processIdentifier, SIGKILL)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// The child's stderr (or, when empty, stdout) quoted for an error message.
    func quotedOutput() -> String {
        let err = stderr.text.firstLines()
        if !err.isEmpty { return "; stderr: \(err)" }
        let out = stdout.text.firstLines()
        return out.isEmpty ? "; it printed nothing" : "; stdout: \(out)"
    }
}

extension UInt64 {
    /// A monotonic deadline as a wall-clock `Date`, for Foundation waits.
    var asWallClockDate: Date {
        let now = MonotonicClock.now()
        return Date().addingTimeInterval(self > now ? Double(self - now) / 1e9 : 0)
    }
}
