import CNgtcp2
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking UDP socket plus an eventfd, polled together, so a QUIC event loop
/// sleeps until a datagram, a timer or a wake-up (stop, cell cancellation).
///
/// Sends and receives use the kernel's UDP segmentation offload where it works:
/// one system call carries a batch of equal-sized QUIC packets (UDP_SEGMENT) and
/// one receive may return several coalesced datagrams (UDP_GRO). On loopback the
/// per-datagram system calls, not the cryptography, are what limit QUIC.
///
/// The channel belongs to the thread whose event loop runs it; other threads reach
/// it only through `waker`.
final class UDPChannel {
    let socket: Socket
    /// Ends a `wait` from any thread (stop, cell cancellation).
    let waker: ChannelWaker
    /// A batch the kernel refused (EAGAIN), sent first when the socket is writable.
    private var stalled: (bytes: [UInt8], segment: Int, to: SockAddrBox?)?
    private var segmentationWorks = true
    let receiveBuffer: UnsafeMutableRawBufferPointer

    /// A socket of `family` marked with `serviceClass` (DSCP and SO_PRIORITY, as Core
    /// marks every socket of a cell). `waker`: another channel's, for a channel that
    /// takes its place (a migration's new socket), so wake-ups still reach the loop.
    init(family: Int32, serviceClass: ServiceClass, waker: ChannelWaker? = nil) throws {
        socket = try Socket(family: family, type: Int32(SOCK_DGRAM.rawValue))
        try socket.setServiceClass(serviceClass)
        self.waker = try waker ?? ChannelWaker()
        let flags = fcntl(socket.fd, F_GETFL)
        _ = fcntl(socket.fd, F_SETFL, flags | O_NONBLOCK)
        // Room for a congestion window's worth of datagrams in flight through loopback.
        try? socket.setBufferSizes(8 << 20)
        _ = pb_udp_enable_gro(socket.fd)
        receiveBuffer = .allocate(byteCount: 65536, alignment: 16)
    }

    deinit {
        receiveBuffer.deallocate()
    }

    /// Wakes a `wait` in progress (or the next one).
    func wake() { waker.wake() }

    /// Waits until readable, woken, or `timeoutNanos` passes (writable too while a
    /// batch is stalled). `also`: a second channel whose socket is polled beside this
    /// one (a client's migration probe); `alsoReadable` says it has datagrams.
    func wait(timeoutNanos: UInt64, also: UDPChannel? = nil) throws -> (readable: Bool, woken: Bool, alsoReadable: Bool) {
        var fds = [
            pollfd(fd: socket.fd, events: Int16(POLLIN) | (stalled != nil ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: waker.fd, events: Int16(POLLIN), revents: 0),
        ]
        if let also { fds.append(pollfd(fd: also.socket.fd, events: Int16(POLLIN), revents: 0)) }
        // ppoll's nanosecond timeout: ngtcp2's pacing timers are microseconds apart.
        let t = min(timeoutNanos, 3_600_000_000_000)
        var ts = timespec(tv_sec: Int(t / 1_000_000_000), tv_nsec: Int(t % 1_000_000_000))
        let r = try syscall("ppoll") { pb_ppoll(&fds, nfds_t(fds.count), &ts) }
        var woken = false
        if r > 0, fds[1].revents != 0 {
            var v: UInt64 = 0
            _ = read(waker.fd, &v, 8)
            woken = true
        }
        let readable = r > 0 && fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
        let alsoReadable = r > 0 && fds.count > 2 && fds[2].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
        return (readable, woken, alsoReadable)
    }

    /// Receives into `receiveBuffer`: the byte count and the size of each coalesced
    /// datagram (0 = one datagram), or nil when nothing is waiting.
    /// `from` gets the sender's address (pass nil on connected sockets).
    func receive(from: UnsafeMutablePointer<sockaddr_storage>?, fromLength: UnsafeMutablePointer<socklen_t>?) throws -> (count: Int, segment: Int)? {
        while true {
            var segment = 0
            let n = pb_udp_recv_segments(socket.fd, receiveBuffer.baseAddress, receiveBuffer.count, &segment, from, fromLength)
            if n >= 0 { return (n, segment) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // An ICMP error for an earlier datagram (port unreachable): nothing to read now.
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return nil
            default: throw SystemError("recvmsg", errno: errno)
            }
        }
    }

    /// Sends `bytes`, a batch of packets of `segment` bytes each (the last may be
    /// shorter), to `to` (nil = connected peer). False when the socket buffer is
    /// full: the batch is kept and goes first once the socket is writable.
    func send(_ bytes: UnsafeRawBufferPointer, segment: Int, to: UnsafePointer<sockaddr>?, length: socklen_t) -> Bool {
        if stalled != nil, !flushStalled() { return false }
        if rawSend(bytes, segment: segment, to: to, length: length) { return true }
        stalled = (Array(bytes), segment, to.map { SockAddrBox(raw: $0, length: length) })
        return false
    }

    /// Retries a stalled batch; true when nothing is stalled any more.
    @discardableResult
    func flushStalled() -> Bool {
        guard let s = stalled else { return true }
        let ok = s.bytes.withUnsafeBytes { b in
            if let to = s.to { return to.withPointer { rawSend(b, segment: s.segment, to: $0, length: $1) } }
            return rawSend(b, segment: s.segment, to: nil, length: 0)
        }
        if ok { stalled = nil }
        return ok
    }

    var isStalled: Bool { stalled != nil }

    private func rawSend(_ bytes: UnsafeRawBufferPointer, segment: Int, to: UnsafePointer<sockaddr>?, length: socklen_t) -> Bool {
        if segment > 0, segment < bytes.count, !segmentationWorks {
            // One datagram at a time; a refusal midway keeps the rest for later.
            var offset = 0
            while offset < bytes.count {
                let n = min(segment, bytes.count - offset)
                if !rawSend(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]), segment: 0, to: to, length: length) {
                    stalled = (Array(bytes[(offset + n)...]), segment, to.map { SockAddrBox(raw: $0, length: length) })
                    return offset > 0 ? true : false
                }
                offset += n
            }
            return true
        }
        while true {
            let n = pb_udp_send_segments(socket.fd, bytes.baseAddress, bytes.count, segment, to, length)
            if n >= 0 { return true }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return false
            case EIO where segment > 0 && segment < bytes.count, EINVAL where segment > 0 && segment < bytes.count:
                // The device cannot segment: fall back to one datagram per packet.
                segmentationWorks = false
                return rawSend(bytes, segment: segment, to: to, length: length)
            default:
                // Other errors (ICMP unreachable reported late) count as lost datagrams:
                // QUIC's loss recovery retransmits or the timers end the connection.
                return true
            }
        }
    }
}

/// The eventfd a `UDPChannel`'s `wait` polls beside its socket: writing it ends the
/// wait. Safe from any thread; the descriptor closes with the last reference.
final class ChannelWaker: Sendable {
    let fd: Int32

    init() throws { fd = try syscall("eventfd") { pb_eventfd_nonblocking() } }

    deinit { close(fd) }

    /// Wakes a `wait` in progress (or the next one).
    func wake() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }
}
