import CPeerBenchSystem
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Sends up to `capacity` prebuilt datagrams per sendmmsg(2) on a connected socket.
/// The slots are written once; per batch only sequence numbers and timestamps change.
final class UDPBatchSender {
    let capacity: Int
    let datagramSize: Int
    private let slots: UnsafeMutableRawBufferPointer
    private let iovecs: UnsafeMutablePointer<iovec>
    private let messages: UnsafeMutablePointer<pb_mmsghdr>

    init(capacity: Int, datagramSize: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        self.capacity = capacity
        self.datagramSize = datagramSize
        slots = .allocate(byteCount: capacity * datagramSize, alignment: 16)
        iovecs = .allocate(capacity: capacity)
        messages = .allocate(capacity: capacity)
        for i in 0..<capacity {
            let slot = UnsafeMutableRawBufferPointer(rebasing: slots[(i * datagramSize)..<((i + 1) * datagramSize)])
            fill(slot)
            iovecs[i] = iovec(iov_base: slot.baseAddress, iov_len: datagramSize)
            var h = pb_mmsghdr()
            h.msg_hdr.msg_iov = iovecs + i
            h.msg_hdr.msg_iovlen = 1
            messages[i] = h
        }
    }

    deinit {
        slots.deallocate()
        iovecs.deallocate()
        messages.deallocate()
    }

    @inline(__always)
    func slot(_ i: Int) -> UnsafeMutableRawPointer { slots.baseAddress! + i * datagramSize }

    /// Sends the first `count` slots; blocks while the socket buffer is full.
    /// Throws on an error, or a send timeout (the cell's deadline).
    func send(_ s: Socket, count: Int) throws {
        var done = 0
        while done < count {
            guard
                let n = try syscallAllowingWouldBlock(
                    "sendmmsg",
                    {
                        pb_sendmmsg(s.fd, messages + done, UInt32(count - done), 0)
                    })
            else { throw TransportError("timed out sending datagrams (cell deadline)") }
            done += Int(n)
        }
    }
}

/// Receives up to `capacity` datagrams per recvmmsg(2), with each one's sender and
/// kernel receive timestamp (SO_TIMESTAMPNS), so batching does not blur arrival times.
final class UDPBatchReceiver {
    let capacity: Int
    /// Big enough for any UDP datagram.
    static let slotSize = 65_536
    private static let controlSize = 64
    /// recvmmsg flag: block for the first datagram only, then take what is queued.
    private static let waitForOne: Int32 = 0x10000  // MSG_WAITFORONE
    private static let dontWait: Int32 = 0x40  // MSG_DONTWAIT
    private let buffers: UnsafeMutableRawBufferPointer
    private let controls: UnsafeMutableRawBufferPointer
    private let names: UnsafeMutablePointer<sockaddr_storage>
    private let iovecs: UnsafeMutablePointer<iovec>
    private let messages: UnsafeMutablePointer<pb_mmsghdr>

    init(capacity: Int) {
        self.capacity = capacity
        buffers = .allocate(byteCount: capacity * Self.slotSize, alignment: 16)
        controls = .allocate(byteCount: capacity * Self.controlSize, alignment: 16)
        names = .allocate(capacity: capacity)
        iovecs = .allocate(capacity: capacity)
        messages = .allocate(capacity: capacity)
        for i in 0..<capacity {
            iovecs[i] = iovec(iov_base: buffers.baseAddress! + i * Self.slotSize, iov_len: Self.slotSize)
        }
    }

    deinit {
        buffers.deallocate()
        controls.deallocate()
        names.deallocate()
        iovecs.deallocate()
        messages.deallocate()
    }

    /// Waits for at least one datagram (up to the socket's receive timeout) and takes
    /// what else is queued. nil on timeout; 0 when the socket was shut down.
    /// With `waiting` false it only takes what is queued (nil when nothing is).
    func receive(_ s: Socket, waiting: Bool = true) throws -> Int? {
        for i in 0..<capacity {
            var h = pb_mmsghdr()
            h.msg_hdr.msg_name = UnsafeMutableRawPointer(names + i)
            h.msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            h.msg_hdr.msg_iov = iovecs + i
            h.msg_hdr.msg_iovlen = 1
            h.msg_hdr.msg_control = controls.baseAddress! + i * Self.controlSize
            h.msg_hdr.msg_controllen = Self.controlSize
            messages[i] = h
        }
        return try syscallAllowingWouldBlock("recvmmsg") {
            pb_recvmmsg(s.fd, messages, UInt32(capacity), waiting ? Self.waitForOne : Self.dontWait, nil)
        }.map(Int.init)
    }

    /// Datagram `i` of the last batch.
    @inline(__always)
    func datagram(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: iovecs[i].iov_base, count: Int(messages[i].msg_len))
    }

    /// The sender of datagram `i`.
    func source(_ i: Int) -> SocketAddress? { SocketAddress(storage: names[i]) }

    /// The kernel's receive time of datagram `i` (CLOCK_REALTIME, nanoseconds), if stamped.
    @inline(__always)
    func timestamp(_ i: Int) -> UInt64? {
        let h = messages[i].msg_hdr
        guard let base = h.msg_control else { return nil }
        let header = MemoryLayout<cmsghdr>.size  // 16 on 64-bit Linux, already 8-aligned
        var off = 0
        while off + header <= Int(h.msg_controllen) {
            let c = (base + off).load(as: cmsghdr.self)
            if c.cmsg_level == SOL_SOCKET && c.cmsg_type == SO_TIMESTAMPNS && Int(c.cmsg_len) >= header + MemoryLayout<timespec>.size {
                let ts = (base + off + header).loadUnaligned(as: timespec.self)
                return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
            }
            guard c.cmsg_len > 0 else { return nil }
            off += (Int(c.cmsg_len) + 7) & ~7
        }
        return nil
    }
}
