import CPeerBenchSystem

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
        let out = try pipe()
        let err: (read: Int32, write: Int32)
        do { err = try pipe() } catch {
            close(out.read)
            close(out.write)
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        inheritOnly(upTo: 2, in: &actions)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        resetSignals(in: &attr)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attr, argv, environ)
        close(out.write)
        close(err.write)
        defer {
            close(out.read)
            close(err.read)
        }
        guard rc == 0 else { throw SystemError("posix_spawn(\(path))", errno: rc) }
        var result = Result(exitCode: nil, signal: nil, output: [], errors: [])
        var readError: SystemError?
        do { try drain(out.read, err.read, into: &result) } catch { readError = error }
        var status: Int32 = 0
        try syscall("waitpid") { waitpid(child, &status, 0) }
        if let readError { throw readError }
        // The wait(2) status: low 7 bits the signal (0 = exited), bits 8-15 the exit code.
        if status & 0x7f == 0 { result.exitCode = (status >> 8) & 0xff } else { result.signal = status & 0x7f }
        return result
    }

    /// A pipe whose ends are close-on-exec from their creation (pipe2 with O_CLOEXEC):
    /// a child that another thread spawns in between cannot inherit a write end, which
    /// would hold the pipe open, so that its reader never saw the end, for as long as
    /// that child lived (a cell's worker: the whole run). pipe(2) then fcntl(2) left
    /// that gap.
    public static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        try syscall("pipe2(O_CLOEXEC)") { pb_pipe_cloexec(&fds) }
        return (fds[0], fds[1])
    }

    /// Adds to `actions`, after its dup2s, the closing of every descriptor above
    /// `highest`: the child has only the descriptors it was given, even one another
    /// thread opened without close-on-exec.
    public static func inheritOnly(upTo highest: Int32, in actions: inout posix_spawn_file_actions_t) {
        _ = pb_spawn_close_from(&actions, highest + 1)
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
