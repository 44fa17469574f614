#if canImport(Glibc)
import Glibc
#endif

/// Answers read from a file descriptor: standard input on a terminal, or a pipe the
/// user named explicitly (`--answers -`). It polls in short slices so Ctrl-C at the
/// prompt (which fires the run's stopper, not an EINTR) ends the wait at once.
public final class DescriptorFieldInput: FieldInput, @unchecked Sendable {
    private let fd: Int32
    // Bytes read past the last newline; only the runner's one thread reads (one prompt at a time).
    private var pending: [UInt8] = []
    private var ended = false

    public init(fd: Int32 = 0) { self.fd = fd }

    /// Whether `fd` is a terminal (where `--interactive` may prompt without `--answers`).
    public static func isTerminal(_ fd: Int32 = 0) -> Bool { isatty(fd) == 1 }

    public func readLine(stop: @Sendable () -> Bool) -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[..<newline]
                pending.removeSubrange(...newline)
                return String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
            }
            if ended || stop() {
                guard !pending.isEmpty, !stop() else { return nil }
                defer { pending = [] }
                return String(decoding: pending, as: UTF8.self)
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 200)
            if ready < 0 && errno != EINTR { ended = true }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 512)
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { pending += buffer[0..<n] } else if n == 0 || (errno != EINTR && errno != EAGAIN) { ended = true }
        }
    }
}
