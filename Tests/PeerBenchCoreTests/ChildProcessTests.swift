import Glibc
import PeerBenchSystem
import Testing

@Suite("ChildProcess: a helper program run to its end")
struct ChildProcessTests {
    @Test("exit code and both outputs, each kept apart")
    func exitCodeAndOutputs() throws {
        let r = try ChildProcess.run("/bin/sh", ["-c", "printf out; printf err >&2; exit 3"])
        #expect(r.exitCode == 3)
        #expect(r.signal == nil)
        #expect(!r.succeeded)
        #expect(String(decoding: r.output, as: UTF8.self) == "out")
        #expect(String(decoding: r.errors, as: UTF8.self) == "err")
    }

    @Test("a child that writes more than a pipe holds to both outputs does not block")
    func largeOutputs() throws {
        // 1 MiB to stderr first, then 1 MiB to stdout: a reader that read stdout to its
        // end before stderr would leave the child blocked on a full stderr pipe (64 KiB).
        let r = try ChildProcess.run("/bin/sh", ["-c", "head -c 1048576 /dev/zero >&2; head -c 1048576 /dev/zero"])
        #expect(r.succeeded)
        #expect(r.errors.count == 1 << 20)
        #expect(r.output.count == 1 << 20)
    }

    @Test("a death by signal is told apart from an exit")
    func signal() throws {
        let r = try ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(r.exitCode == nil)
        #expect(r.signal == SIGTERM)
    }

    @Test("stdin is /dev/null: a child that reads it ends at once")
    func stdinIsEmpty() throws {
        let r = try ChildProcess.run("/bin/cat", [])
        #expect(r.succeeded)
        #expect(r.output.isEmpty)
    }

    @Test("the child has only its three descriptors, even one this process left inheritable")
    func onlyStandardDescriptors() throws {
        // Opened without O_CLOEXEC, as another thread's code might: the child must still
        // not hold it (a held pipe end would keep that pipe's reader from its end).
        let stray = open("/dev/null", O_RDONLY)
        #expect(stray > 2)
        defer { close(stray) }
        let r = try ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        // 0-2, and the one ls opens to list the folder (the lowest free: 3).
        let fds = String(decoding: r.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }.sorted()
        #expect(fds == [0, 1, 2, 3])
    }

    @Test("pipe(): both ends are close-on-exec from the start")
    func pipeIsCloseOnExec() throws {
        let (r, w) = try ChildProcess.pipe()
        defer {
            close(r)
            close(w)
        }
        #expect(fcntl(r, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(w, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test("a missing program is an error that names it")
    func missing() {
        #expect {
            try ChildProcess.run("/nonexistent/peerbench-tool", [])
        } throws: { error in
            let e = error as? SystemError
            return e?.errno == ENOENT && e?.function == "posix_spawn(/nonexistent/peerbench-tool)"
        }
    }
}
