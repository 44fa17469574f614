#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

extension ControlChannel {
    /// POLLRDHUP (Linux; Glibc hides it behind _GNU_SOURCE): the peer shut its side down.
    static let pollReadHangUp: Int16 = 0x2000

    /// Waits up to `waitingSeconds` for the peer to hang up (FIN or RST: its process died,
    /// its host left) and says whether it did, without reading: bytes that arrive stay
    /// for `receive`, and they do not end the wait early. For `serve` while a cell runs,
    /// when the client sends nothing on this channel. True also once `close()` was called here.
    public func peerHungUp(waitingSeconds: Double) -> Bool {
        let ms = Int32(clamping: Int64((max(0, waitingSeconds) * 1000).rounded(.up)))
        let result = try? socket.withDescriptor("poll") { fd throws(SystemError) -> Bool in
            var p = pollfd(fd: fd, events: Self.pollReadHangUp, revents: 0)
            let n = try syscall("poll") { poll(&p, 1, ms) }
            return n > 0 && p.revents & (Self.pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0
        }
        return result ?? true
    }
}
