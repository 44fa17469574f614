#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import PeerBenchCore

/// A non-blocking UDP socket plus an eventfd, polled together, so a QUIC event loop
/// sleeps until a datagram, a timer or a wake-up (stop, cell cancellation).
final class UDPChannel: @unchecked Sendable {
    let socket: Socket
    private let wakeFD: Int32
    /// One datagram the kernel refused (EAGAIN), sent first when the socket is writable.
    private var stalled: [UInt8]?
    private var stalledTo: SockAddrBox?
    let receiveBuffer: UnsafeMutableRawBufferPointer

    init(family: Int32) throws {
        socket = try Socket(family: family, type: Int32(SOCK_DGRAM.rawValue))
        wakeFD = try syscall("eventfd") { pb_eventfd_nonblocking() }
        let flags = fcntl(socket.fd, F_GETFL)
        _ = fcntl(socket.fd, F_SETFL, flags | O_NONBLOCK)
        // Room for a congestion window's worth of datagrams in flight through loopback.
        try? socket.setBufferSizes(8 << 20)
        receiveBuffer = .allocate(byteCount: 65536, alignment: 16)
    }

    deinit {
        close(wakeFD)
        receiveBuffer.deallocate()
    }

    /// Wakes a `wait` in progress (or the next one). Safe from any thread.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    enum Event { case readable, woken, timeout }

    /// Waits until readable, woken, or `timeoutNanos` passes (writable too while a
    /// datagram is stalled). Returns which (readable wins over woken).
    func wait(timeoutNanos: UInt64) throws -> (readable: Bool, woken: Bool) {
        var fds = [pollfd(fd: socket.fd, events: Int16(POLLIN) | (stalled != nil ? Int16(POLLOUT) : 0), revents: 0),
                   pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        // Round up so a sub-millisecond timer does not turn into a busy loop of 0 ms polls,
        // but use ppoll's nanosecond timeout to avoid oversleeping by a whole millisecond.
        var ts = timespec(tv_sec: Int(min(timeoutNanos, 3_600_000_000_000) / 1_000_000_000), tv_nsec: Int(timeoutNanos % 1_000_000_000))
        let r = try syscall("ppoll") { pb_ppoll(&fds, 2, &ts) }
        var woken = false
        if r > 0, fds[1].revents != 0 {
            var v: UInt64 = 0
            _ = read(wakeFD, &v, 8)
            woken = true
        }
        let readable = r > 0 && fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
        return (readable, woken)
    }

    /// One datagram into `receiveBuffer`; nil when none is waiting.
    /// `from` gets the sender's address for unconnected sockets.
    func receive(from: UnsafeMutablePointer<sockaddr_storage>?, fromLength: UnsafeMutablePointer<socklen_t>?) throws -> Int? {
        while true {
            let n: Int
            if let from, let fromLength {
                fromLength.pointee = socklen_t(MemoryLayout<sockaddr_storage>.size)
                n = UnsafeMutableRawPointer(from).withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(socket.fd, receiveBuffer.baseAddress, receiveBuffer.count, 0, $0, fromLength)
                }
            } else {
                n = recv(socket.fd, receiveBuffer.baseAddress, receiveBuffer.count, 0)
            }
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // An ICMP error for an earlier datagram (port unreachable): nothing to read now.
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return nil
            default: throw SystemError("recvfrom", errno: errno)
            }
        }
    }

    /// Sends one datagram to `to` (nil = connected peer). False when the socket buffer
    /// is full: the datagram is kept and goes first once the socket is writable.
    func send(_ bytes: UnsafeRawBufferPointer, to: UnsafePointer<sockaddr>?, length: socklen_t) -> Bool {
        if stalled != nil, !flushStalled() {
            return false
        }
        if rawSend(bytes, to: to, length: length) { return true }
        stalled = Array(bytes)
        stalledTo = to.map { SockAddrBox(raw: $0, length: length) }
        return false
    }

    /// Retries a stalled datagram; true when nothing is stalled any more.
    @discardableResult
    func flushStalled() -> Bool {
        guard let s = stalled else { return true }
        let ok = s.withUnsafeBytes { b in
            if let to = stalledTo { return to.withPointer { rawSend(b, to: $0, length: $1) } }
            return rawSend(b, to: nil, length: 0)
        }
        if ok { stalled = nil; stalledTo = nil }
        return ok
    }

    var isStalled: Bool { stalled != nil }

    private func rawSend(_ bytes: UnsafeRawBufferPointer, to: UnsafePointer<sockaddr>?, length: socklen_t) -> Bool {
        while true {
            let n = to.map { sendto(socket.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length) }
                ?? Glibc.send(socket.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return true }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS { return false }
            // Other errors (ICMP unreachable reported late) count as lost datagrams:
            // QUIC's loss recovery retransmits or the timers end the connection.
            return true
        }
    }
}
