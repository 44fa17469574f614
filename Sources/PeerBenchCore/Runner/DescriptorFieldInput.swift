import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Answers read from a file descriptor: standard input on a terminal, or a pipe the
/// user named explicitly (`--answers -`). It polls in short slices so Ctrl-C at the
/// prompt (which fires the run's stopper, not an EINTR) ends the wait at once.
public final class DescriptorFieldInput: FieldInput, Sendable {
    private let fd: Int32
    /// Bytes read past the last newline, and whether the input has ended. One prompt
    /// reads at a time; the lock lets that be any thread and is not held while waiting.
    private let state = Mutex<(pending: [UInt8], ended: Bool)>(([], false))

    public init(fd: Int32 = 0) { self.fd = fd }

    /// Whether `fd` is a terminal (where `--interactive` may prompt without `--answers`).
    public static func isTerminal(_ fd: Int32 = 0) -> Bool { isatty(fd) == 1 }

    /// What the bytes read so far give: a line (nil: no more lines), or nothing yet.
    private enum Take { case line(String?), readMore }

    public func readLine(stop: @Sendable () -> Bool) -> String? {
        while true {
            let stopped = stop()
            let take = state.withLock { s -> Take in
                if let newline = s.pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = s.pending[..<newline]
                    defer { s.pending.removeSubrange(...newline) }
                    return .line(String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self))
                }
                guard s.ended || stopped else { return .readMore }
                // The end: an unterminated last line still counts, unless the run is stopping.
                guard !s.pending.isEmpty, !stopped else { return .line(nil) }
                defer { s.pending = [] }
                return .line(String(decoding: s.pending, as: UTF8.self))
            }
            if case .line(let line) = take { return line }
            readMore()
        }
    }

    /// Waits up to 200 ms for input and takes what there is.
    private func readMore() {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, 200)
        if ready < 0 && errno != EINTR { state.withLock { $0.ended = true } }
        guard ready > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &buffer, buffer.count)
        let failed = n < 0 && errno != EINTR && errno != EAGAIN
        state.withLock { s in
            if n > 0 { s.pending += buffer[0..<n] } else if n == 0 || failed { s.ended = true }
        }
    }
}
