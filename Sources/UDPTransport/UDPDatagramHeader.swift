/// The UDP plugin's datagram types (docs/protocol/udp.md).
enum UDPMessageType: UInt8 {
    case hello = 0x01
    case helloAck = 0x02
    case probe = 0x03
    case echo = 0x04
    case keepAlive = 0x05
    case keepAliveAck = 0x06
    /// c → s, `seq` = attempt: after a keepalive verdict, "are you there, where did you get to?" (`reconnect`).
    case resume = 0x07
    /// s → c, `seq` copied: {received u64, next sequence u64 = highest received + 1}.
    case resumed = 0x08
    case data = 0x10
    case end = 0x11
    case report = 0x12
    case bye = 0x13
    case byeAck = 0x14
    /// c → s, `seq` = transaction: {response bytes u64} then the request's bytes (request-response).
    case request = 0x20
    /// s → c, `seq` and `ts` copied from REQUEST: the response's bytes.
    case response = 0x21
    /// Either way, `seq` = frame number, `ts` = send time: the frame's bytes (isochronous).
    case frame = 0x22
    /// c → s, `seq` = attempt: {sent, period ns, deadline ns, linger ns, from} until the FRAME_REPORT.
    case frameEnd = 0x23
    /// s → c, `seq` = index of its first delay: {received, late, then up to 1 000 delays ns}.
    case frameReport = 0x24
    /// c → s, `seq` = attempt: {frames, frame bytes, period ns}: the server sends frames on that schedule.
    case framePull = 0x25
    /// s → c, `seq` 0: {frames sent}, after the last frame of a FRAME_PULL, and again for each repeated FRAME_PULL.
    case framesSent = 0x26
    /// c → s, `seq` = attempt: {count, size}: the server sends `count` DATA of `size` bytes (bulk down, bidir).
    case pull = 0x27
    /// s → c, `seq` 0: {sent, bytes}, after a PULL's last DATA, and again for each repeated PULL.
    case pushed = 0x28
}

/// The 24-byte header every PeerBench UDP datagram starts with (big-endian):
///
/// | offset | size | field                                              |
/// |-------:|-----:|----------------------------------------------------|
/// | 0      | 1    | type (`UDPMessageType`)                            |
/// | 1      | 1    | protocol version (1)                               |
/// | 2      | 2    | reserved, zero                                     |
/// | 4      | 4    | session id, chosen by the client                   |
/// | 8      | 8    | sequence number                                    |
/// | 16     | 8    | sender's monotonic clock at send, nanoseconds      |
struct UDPDatagramHeader: Equatable {
    static let size = 24
    static let version: UInt8 = 1
    /// The largest UDP payload over IPv4: 65 535 - 20 (IP) - 8 (UDP).
    static let maxIPv4Payload = 65_507
    /// The largest message the bulk phase can carry in one datagram.
    static let maxMessageSize = maxIPv4Payload - size

    var type: UDPMessageType
    var session: UInt32
    var sequence: UInt64
    var timestamp: UInt64

    @inline(__always)
    func write(to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: type.rawValue, toByteOffset: 0, as: UInt8.self)
        p.storeBytes(of: Self.version, toByteOffset: 1, as: UInt8.self)
        p.storeBytes(of: UInt16(0), toByteOffset: 2, as: UInt16.self)
        p.storeBytes(of: session.bigEndian, toByteOffset: 4, as: UInt32.self)
        Self.writeSequence(sequence, timestamp: timestamp, to: p)
    }

    /// Rewrites only the per-datagram fields of a prebuilt DATA datagram.
    @inline(__always)
    static func writeSequence(_ sequence: UInt64, timestamp: UInt64, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: sequence.bigEndian, toByteOffset: 8, as: UInt64.self)
        p.storeBytes(of: timestamp.bigEndian, toByteOffset: 16, as: UInt64.self)
    }

    /// Parses a datagram's header; nil if it is too short, of another version or an unknown type.
    @inline(__always)
    init?(_ d: UnsafeRawBufferPointer) {
        guard d.count >= Self.size, d[1] == Self.version, let t = UDPMessageType(rawValue: d[0]) else { return nil }
        type = t
        session = UInt32(bigEndian: d.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        sequence = UInt64(bigEndian: d.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        timestamp = UInt64(bigEndian: d.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    }

    init(type: UDPMessageType, session: UInt32, sequence: UInt64, timestamp: UInt64) {
        self.type = type
        self.session = session
        self.sequence = sequence
        self.timestamp = timestamp
    }

    /// A whole control datagram: this header followed by big-endian u64 fields.
    func datagram(_ fields: [UInt64] = []) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.size + 8 * fields.count)
        out.withUnsafeMutableBytes { p in
            write(to: p.baseAddress!)
            for (i, f) in fields.enumerated() { p.storeBytes(of: f.bigEndian, toByteOffset: Self.size + 8 * i, as: UInt64.self) }
        }
        return out
    }
}

extension UnsafeRawBufferPointer {
    /// The i-th big-endian u64 after the header; 0 if the datagram is too short.
    func field(_ i: Int) -> UInt64 {
        let off = UDPDatagramHeader.size + 8 * i
        guard off + 8 <= count else { return 0 }
        return UInt64(bigEndian: loadUnaligned(fromByteOffset: off, as: UInt64.self))
    }
}
