import PeerBenchCore

/// The TCP plugin's frames (docs/protocol/tcp.md): a 5-byte header — body length
/// (u32, big-endian, header excluded) then a type byte — followed by the body.
enum TCPFrameType: UInt8 {
    case hello = 0x01
    case probe = 0x02
    case echo = 0x03
    case data = 0x10
    case end = 0x11
    case report = 0x12
    case goodbye = 0x13
}

enum TCPFraming {
    static let headerSize = 5
    /// Largest DATA body accepted: big enough for any sensible message, small enough
    /// that a corrupt length cannot make a peer wait forever for gigabytes.
    static let maxMessageSize = 64 << 20
    /// Largest control body (HELLO, PROBE, END, REPORT); anything longer is a protocol error.
    static let maxControlBody = 64
    /// HELLO body: "PBTC", then protocol version (u16) and flags (u16, zero).
    static let magic: [UInt8] = Array("PBTC".utf8)
    static let version: UInt16 = 1

    /// Writes a frame header at `p`.
    @inline(__always)
    static func writeHeader(_ type: TCPFrameType, bodyLength: Int, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: UInt32(bodyLength).bigEndian, toByteOffset: 0, as: UInt32.self)
        p.storeBytes(of: type.rawValue, toByteOffset: 4, as: UInt8.self)
    }

    /// Encodes a control frame whose body is a list of big-endian integers.
    static func controlFrame(_ type: TCPFrameType, _ fields: [any FixedWidthInteger]) -> [UInt8] {
        var body: [UInt8] = []
        for f in fields { body += f.bigEndianBytes }
        var frame = [UInt8](repeating: 0, count: headerSize)
        frame.withUnsafeMutableBytes { writeHeader(type, bodyLength: body.count, to: $0.baseAddress!) }
        return frame + body
    }

    static func hello() -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: headerSize)
        frame.withUnsafeMutableBytes { writeHeader(.hello, bodyLength: 8, to: $0.baseAddress!) }
        return frame + magic + version.bigEndianBytes + UInt16(0).bigEndianBytes
    }

    /// Whether a HELLO body names this protocol and version.
    static func isHello(_ body: UnsafeRawBufferPointer) -> Bool {
        body.count == 8 && Array(body.prefix(4)) == magic && body.readBE(UInt16.self, at: 4) == version
    }
}

extension FixedWidthInteger {
    var bigEndianBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}

extension UnsafeRawBufferPointer {
    /// A big-endian unsigned integer at `offset` (unaligned reads are fine).
    @inline(__always)
    func readBE<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

/// Message and byte counts of DATA frames, as a receiver sees them.
struct TCPDataCount: Sendable, Equatable {
    var messages = 0
    var bytes = 0
}

/// Reads frames from a stream socket in large chunks and parses them from the buffer.
///
/// DATA bodies are consumed in place and only counted, so a receiver makes one
/// recv() per buffer-full, not one per message, and never allocates per message.
/// Control frames come back to the caller; their body stays valid until the next call.
final class TCPFrameReader {
    private let socket: Socket
    private let storage: UnsafeMutableRawBufferPointer
    private var head = 0
    private var tail = 0
    /// Bytes of the current DATA body not yet consumed.
    private var dataRemaining = 0
    /// What the caller is waiting for, for timeout messages.
    var waitingFor = "data"

    init(socket: Socket, capacity: Int = 256 << 10) {
        self.socket = socket
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The next control frame, counting DATA frames into `count` on the way.
    /// Returns nil on an orderly end of stream at a frame boundary.
    func nextControl(counting count: inout TCPDataCount) throws -> (type: TCPFrameType, body: UnsafeRawBufferPointer)? {
        while true {
            if dataRemaining > 0 {
                if head == tail {
                    guard try fill() else { throw TransportError("peer closed the connection inside a DATA frame") }
                }
                let n = min(dataRemaining, tail - head)
                head += n
                dataRemaining -= n
                count.bytes += n
                if dataRemaining == 0 { count.messages += 1 }
                continue
            }
            let available = tail - head
            if available >= TCPFraming.headerSize {
                let header = UnsafeRawBufferPointer(rebasing: storage[head..<tail])
                let length = Int(header.readBE(UInt32.self, at: 0))
                let rawType = header[4]
                guard let type = TCPFrameType(rawValue: rawType) else {
                    throw TransportError("protocol error: unknown frame type 0x\(String(rawType, radix: 16))")
                }
                if type == .data {
                    guard length <= TCPFraming.maxMessageSize else {
                        throw TransportError("protocol error: DATA frame of \(length) bytes exceeds the \(TCPFraming.maxMessageSize)-byte limit")
                    }
                    head += TCPFraming.headerSize
                    if length == 0 { count.messages += 1 } else { dataRemaining = length }
                    continue
                }
                guard length <= TCPFraming.maxControlBody else {
                    throw TransportError("protocol error: \(type) frame with a \(length)-byte body")
                }
                if available >= TCPFraming.headerSize + length {
                    let start = head + TCPFraming.headerSize
                    head = start + length
                    return (type, UnsafeRawBufferPointer(rebasing: storage[start..<head]))
                }
            }
            guard try fill() else {
                if head == tail { return nil }
                throw TransportError("peer closed the connection inside a frame header")
            }
        }
    }

    /// Appends one recv() worth of bytes; false on end of stream.
    private func fill() throws -> Bool {
        if head == tail {
            head = 0
            tail = 0
        } else if storage.count - tail < TCPFraming.headerSize + TCPFraming.maxControlBody {
            // Move the partial frame to the front so a whole control frame fits.
            let n = tail - head
            storage.baseAddress!.copyMemory(from: storage.baseAddress! + head, byteCount: n)
            head = 0
            tail = n
        }
        let free = UnsafeMutableRawBufferPointer(rebasing: storage[tail...])
        guard let n = try socket.receive(free) else {
            throw TransportError("timed out waiting for \(waitingFor) (cell deadline)")
        }
        if n == 0 { return false }
        tail += n
        return true
    }
}
