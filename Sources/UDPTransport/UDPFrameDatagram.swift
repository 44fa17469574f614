import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One FRAME datagram of an isochronous flow (docs/protocol/udp.md, "Isochronous"),
/// built once and rewritten for each frame: `seq` = the frame's number, `ts` = its send
/// time, then `size` bytes, and the tag of an authenticated client's cell.
struct UDPFrameDatagram {
    private var bytes: [UInt8]
    private let untagged: Int
    private let tag: UDPDatagramTag?

    init(session: UInt32, size: Int, tag: UDPDatagramTag?) {
        untagged = UDPDatagramHeader.size + size
        self.tag = tag
        bytes = [UInt8](repeating: 0, count: untagged + (tag == nil ? 0 : UDPDatagramTag.size))
        bytes.withUnsafeMutableBytes { p in
            UDPDatagramHeader(type: .frame, session: session, sequence: 0, timestamp: 0).write(to: p.baseAddress!)
            for j in UDPDatagramHeader.size..<untagged { p[j] = UInt8(truncatingIfNeeded: j) }
        }
    }

    /// Sends frame `seq` now on `socket` (connected to the peer). An ICMP error for an
    /// earlier frame (ECONNREFUSED: the peer's port is not open yet, or not any more)
    /// does not stop the schedule: the receiver counts what it missed.
    mutating func send(_ seq: Int, on socket: Socket) throws {
        let (untagged, tag) = (untagged, tag)
        let ok: Bool = try bytes.withUnsafeMutableBytes { p in
            UDPDatagramHeader.writeSequence(UInt64(seq), timestamp: MonotonicClock.now(), to: p.baseAddress!)
            tag?.write(over: p.baseAddress!, length: untagged)
            do {
                return try socket.send(UnsafeRawBufferPointer(p)) != nil
            } catch let e as SystemError where e.errno == ECONNREFUSED {
                return true
            }
        }
        guard ok else { throw TransportError("udp: timed out sending frame \(seq) (cell deadline)") }
    }
}
