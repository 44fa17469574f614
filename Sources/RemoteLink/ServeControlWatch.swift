#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import PeerBenchCore

/// Watches the control connection while a cell runs: the client sends nothing then,
/// so a hang-up (FIN, RST: the client process died or its host left) means it is
/// gone, and `onGone` stops the cell's server at once instead of at the deadline.
/// Bytes that arrive are left for the session to read after the cell.
final class ServeControlWatch: Sendable {
    /// POLLRDHUP (Linux; Glibc hides it behind _GNU_SOURCE): the peer shut its side down.
    private static let pollReadHangUp: Int16 = 0x2000
    private let state = Mutex<(ended: Bool, gone: Bool)>((false, false))
    private let done = DispatchSemaphore(value: 0)

    init(socket: Socket, onGone: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            defer { done.signal() }
            while !state.withLock({ $0.ended }) {
                let hungUp = (try? socket.withDescriptor("poll") { fd -> Bool in
                    var p = pollfd(fd: fd, events: Int16(POLLIN) | Self.pollReadHangUp, revents: 0)
                    let n = poll(&p, 1, 100)
                    guard n > 0 else { return false }
                    if p.revents & (Self.pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 { return true }
                    // Unread bytes (a BYE sent early, or garbage): the session reads them later.
                    usleep(100_000)
                    return false
                }) ?? true
                if hungUp {
                    state.withLock { $0.gone = true }
                    onGone()
                    return
                }
            }
        }
        thread.name = "serve-watch"
        thread.start()
    }

    /// Stops watching; true when the client hung up during the cell.
    func end() -> Bool {
        state.withLock { $0.ended = true }
        done.wait()
        return state.withLock { $0.gone }
    }
}
