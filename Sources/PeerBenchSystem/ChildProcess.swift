#if canImport(Glibc)
    import Glibc
#endif

/// A short helper program (`ip`, `tc`) run to its end with posix_spawn and waitpid.
///
/// Foundation's `Process.waitUntilExit` on Linux polls the run loop in 50 ms steps and
/// learns of the exit from a SIGCHLD source on another thread, so a command that takes
/// 2 ms returned after 2 ms or after one to several steps, at random: a cell's link
/// set-up took 15 ms or 270-320 ms (matrices/resumption.json, instrumented, 2026-12-02).
/// Here the caller waits for the child itself.
public enum ChildProcess {
    /// How a child ended and what it printed.
    public struct Result: Sendable, Equatable {
        /// The exit code, or nil when a signal ended it (`signal`).
        public var exitCode: Int32?
        public var signal: Int32?
        public var output: [UInt8]
        public var errors: [UInt8]
        public var succeeded: Bool { exitCode == 0 }
    }

    /// Runs `path` with `arguments` (without argv[0]), stdin from /dev/null, in this
    /// process's environment with its signals reset (`resetSignals`), and waits for its
    /// end, reading both of its outputs as it writes them (a child that fills one pipe
    /// while the other is read cannot block).
    /// Throws when it cannot be started (`posix_spawn(PATH)`, ENOENT for a missing one).
    public static func run(_ path: String, _ arguments: [String]) throws(SystemError) -> Result {
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        try syscall("pipe") { pipe(&out) }
        do { try syscall("pipe") { pipe(&err) } } catch {
            out.forEach { close($0) }
            throw error
        }
        // Close-on-exec, so no other child started meanwhile holds a write end open.
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        resetSignals(in: &attr)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attr, argv, environ)
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard rc == 0 else { throw SystemError("posix_spawn(\(path))", errno: rc) }
        var result = Result(exitCode: nil, signal: nil, output: [], errors: [])
        var readError: SystemError?
        do { try drain(out[0], err[0], into: &result) } catch { readError = error }
        var status: Int32 = 0
        try syscall("waitpid") { waitpid(child, &status, 0) }
        if let readError { throw readError }
        // The wait(2) status: low 7 bits the signal (0 = exited), bits 8-15 the exit code.
        if status & 0x7f == 0 { result.exitCode = (status >> 8) & 0xff } else { result.signal = status & 0x7f }
        return result
    }

    /// Sets `attr` so the child starts with no signal blocked and SIGINT, SIGTERM, SIGHUP
    /// and SIGPIPE at their defaults: the runner blocks or ignores the ones it handles
    /// itself, and a child inherits both. `flags` adds other posix_spawn flags
    /// (`POSIX_SPAWN_SETPGROUP`).
    public static func resetSignals(in attr: inout posix_spawnattr_t, addingFlags flags: Int32 = 0) {
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | flags))
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
    }

    /// Reads both pipes until each reports its end.
    private static func drain(_ outFd: Int32, _ errFd: Int32, into result: inout Result) throws(SystemError) {
        var fds = [pollfd(fd: outFd, events: Int16(POLLIN), revents: 0), pollfd(fd: errFd, events: Int16(POLLIN), revents: 0)]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 1)
        defer { buffer.deallocate() }
        while fds.contains(where: { $0.fd >= 0 }) {
            _ = try syscall("poll(child output)") { poll(&fds, 2, -1) }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                let fd = fds[i].fd
                let n = try syscall("read(child output)") { read(fd, buffer.baseAddress, buffer.count) }
                if n == 0 {
                    fds[i].fd = -1  // poll ignores a negative descriptor
                } else if i == 0 {
                    result.output += buffer[0..<n]
                } else {
                    result.errors += buffer[0..<n]
                }
            }
        }
    }
}
