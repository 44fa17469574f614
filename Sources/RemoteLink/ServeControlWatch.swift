import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the control connection while a cell runs: the client sends nothing then,
/// so a hang-up (FIN, RST: the client process died or its host left) means it is
/// gone, and `onGone` stops the cell's server at once instead of at the deadline.
/// Bytes that arrive are left for the session to read after the cell.
final class ServeControlWatch: Sendable {
    /// POLLRDHUP (Linux; Glibc hides it behind _GNU_SOURCE): the peer shut its side down.
    /// Watched instead of POLLIN, so bytes that arrive do not wake the watch at all.
    private static let pollReadHangUp: Int16 = 0x2000
    private let gone = Mutex(false)
    private let done = DispatchSemaphore(value: 0)
    /// A pipe whose write end `end()` uses to wake the poll at once.
    private let wakeRead: Int32, wakeWrite: Int32

    init(socket: Socket, onGone: @escaping @Sendable () -> Void) {
        guard let fds = try? ChildProcess.pipe() else {
            // Out of descriptors: no watch; the cell then ends at its deadline as it would.
            (wakeRead, wakeWrite) = (-1, -1)
            done.signal()
            return
        }
        (wakeRead, wakeWrite) = fds
        let thread = Thread { [self] in
            defer { done.signal() }
            let hungUp =
                (try? socket.withDescriptor("poll") { fd -> Bool in
                    var p = [pollfd(fd: fd, events: Self.pollReadHangUp, revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                    while true {
                        let n = poll(&p, 2, -1)
                        if n < 0 && errno == EINTR { continue }
                        if n < 0 { return true }
                        if p[0].revents & (Self.pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 { return true }
                        if p[1].revents != 0 { return false }
                    }
                }) ?? true
            if hungUp {
                gone.withLock { $0 = true }
                onGone()
            }
        }
        thread.name = "serve-watch"
        thread.start()
    }

    /// Stops watching (at once); true when the client hung up during the cell.
    func end() -> Bool {
        if wakeWrite >= 0 {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
        done.wait()
        if wakeRead >= 0 {
            close(wakeRead)
            close(wakeWrite)
        }
        return gone.withLock { $0 }
    }
}
