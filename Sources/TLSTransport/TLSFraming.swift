import PeerBenchCore

/// Frames inside the TLS stream (docs/protocol/tls.md): a 5-byte header — body length
/// (u32, big-endian) then a type byte — followed by the body. The same shapes as the
/// TCP plugin's frames, so TLS and TCP carry the same bytes apart from encryption.
enum TLSFrameType: UInt8 {
    case probe = 0x02
    case echo = 0x03
    case data = 0x10
    case end = 0x11
    case report = 0x12
    case goodbye = 0x13
}

enum TLSFraming {
    static let headerSize = 5
    /// Largest DATA body accepted (a corrupt length must not make a peer wait for gigabytes).
    static let maxMessageSize = 64 << 20
    static let maxControlBody = 64

    @inline(__always)
    static func writeHeader(_ type: TLSFrameType, bodyLength: Int, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: UInt32(bodyLength).bigEndian, toByteOffset: 0, as: UInt32.self)
        p.storeBytes(of: type.rawValue, toByteOffset: 4, as: UInt8.self)
    }

    /// A control frame whose body is big-endian u64 fields.
    static func control(_ type: TLSFrameType, _ fields: [UInt64] = []) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: headerSize)
        frame.withUnsafeMutableBytes { writeHeader(type, bodyLength: fields.count * 8, to: $0.baseAddress!) }
        for f in fields { withUnsafeBytes(of: f.bigEndian) { frame += $0 } }
        return frame
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always)
    func readBE<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

/// Reads frames from a TLS session in large chunks. DATA bodies are only counted
/// (never copied out); control frames come back with their body, valid until the next call.
final class TLSFrameReader {
    private let session: TLSSession
    private let storage: UnsafeMutableRawBufferPointer
    private var head = 0, tail = 0
    private var dataRemaining = 0
    var messages = 0
    var bytes = 0

    init(_ session: TLSSession, capacity: Int = 256 << 10) {
        self.session = session
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The next control frame, counting DATA on the way; nil at a clean end of stream.
    func next() throws -> (type: TLSFrameType, body: UnsafeRawBufferPointer)? {
        while true {
            if dataRemaining > 0 {
                if head == tail { guard try fill() else { throw TransportError("tls: the peer closed the stream inside a DATA frame") } }
                let n = min(dataRemaining, tail - head)
                head += n
                dataRemaining -= n
                bytes += n
                if dataRemaining == 0 { messages += 1 }
                continue
            }
            if tail - head >= TLSFraming.headerSize {
                let header = UnsafeRawBufferPointer(rebasing: storage[head..<tail])
                let length = Int(header.readBE(UInt32.self, at: 0))
                guard let type = TLSFrameType(rawValue: header[4]) else {
                    throw TransportError("tls: protocol error: unknown frame type 0x\(String(header[4], radix: 16))")
                }
                if type == .data {
                    guard length <= TLSFraming.maxMessageSize else { throw TransportError("tls: protocol error: DATA frame of \(length) bytes") }
                    head += TLSFraming.headerSize
                    if length == 0 { messages += 1 } else { dataRemaining = length }
                    continue
                }
                guard length <= TLSFraming.maxControlBody else { throw TransportError("tls: protocol error: \(type) frame of \(length) bytes") }
                if tail - head >= TLSFraming.headerSize + length {
                    let start = head + TLSFraming.headerSize
                    head = start + length
                    return (type, UnsafeRawBufferPointer(rebasing: storage[start..<head]))
                }
            }
            guard try fill() else {
                if head == tail { return nil }
                throw TransportError("tls: the peer closed the stream inside a frame header")
            }
        }
    }

    private func fill() throws -> Bool {
        if head == tail {
            head = 0
            tail = 0
        } else if storage.count - tail < TLSFraming.headerSize + TLSFraming.maxControlBody {
            let n = tail - head
            storage.baseAddress!.copyMemory(from: storage.baseAddress! + head, byteCount: n)
            head = 0
            tail = n
        }
        let n = try session.receive(UnsafeMutableRawBufferPointer(rebasing: storage[tail...]))
        if n == 0 { return false }
        tail += n
        return true
    }
}
