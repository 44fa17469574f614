import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// Length-prefixed frames for stream transports (TCP, TLS over TCP; docs/protocol/tcp.md):
/// a 5-byte header — body length (u32, big-endian, header excluded) then a type
/// byte (`MessageType`, the numbering quic's frames share) — followed by the body. One
/// implementation, so every stream plugin puts the same bytes on the wire apart from
/// its own encryption or handshake.
public enum StreamFraming {
    public static let headerSize = 5
    /// Largest DATA body accepted: big enough for any sensible message, small enough
    /// that a corrupt length cannot make a peer wait forever for gigabytes.
    public static let maxMessageSize = 64 << 20
    /// Largest control body (HELLO, PROBE, END); anything longer is a protocol error.
    public static let maxControlBody = 64
    /// Intervals a REPORT's bulk series carries at most (5 minutes at 100 ms, then coarser).
    public static let maxReportIntervals = 3_000
    /// Largest REPORT body: counts (16), interval (8), entry count (4), a u64 per
    /// interval, then the receiver's span (8) when the END asked for it.
    public static let maxReportBody = 28 + 8 * maxReportIntervals + 8
    /// END's flags (its optional third u64): bit 0 asks for the receiver's span in the REPORT.
    public static let endFlagReceiverSpan: UInt64 = 1

    /// The body limit a receiver enforces for a control frame of `type`.
    @inline(__always)
    public static func maxBody(_ type: MessageType) -> Int {
        switch type {
        case .report: maxReportBody
        case .frameReport: FrameReportFrames.maxBody
        default: maxControlBody
        }
    }
    /// Writes a frame header at `p`.
    @inline(__always)
    public static func writeHeader(_ type: MessageType, bodyLength: Int, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: UInt32(bodyLength).bigEndian, toByteOffset: 0, as: UInt32.self)
        p.storeBytes(of: type.rawValue, toByteOffset: 4, as: UInt8.self)
    }

    /// Writes `n` identical DATA frames of `bodySize` bytes back to back at `p` (body
    /// byte j is j mod 256): the bulk sender's batch and the workloads' frames.
    static func writeDataFrames(_ n: Int, bodySize: Int, to p: UnsafeMutableRawPointer) {
        for i in 0..<n {
            let f = p + i * (headerSize + bodySize)
            writeHeader(.data, bodyLength: bodySize, to: f)
            for j in 0..<bodySize { f.storeBytes(of: UInt8(truncatingIfNeeded: j), toByteOffset: headerSize + j, as: UInt8.self) }
        }
    }

    /// Encodes a control frame whose body is a list of big-endian integers.
    public static func controlFrame(_ type: MessageType, _ fields: [any FixedWidthInteger]) -> [UInt8] {
        var body: [UInt8] = []
        for f in fields { body += f.bigEndianBytes }
        var frame = [UInt8](repeating: 0, count: headerSize)
        frame.withUnsafeMutableBytes { writeHeader(type, bodyLength: body.count, to: $0.baseAddress!) }
        return frame + body
    }
}

/// Reads frames from a stream socket in large chunks and parses them from the buffer.
///
/// DATA bodies are consumed in place and only counted, so a receiver makes one
/// recv() per buffer-full, not one per message, and never allocates per message.
/// Control frames come back to the caller; their body stays valid until the next call.
public final class StreamFrameReader {
    private let stream: any ByteStream
    private let storage: UnsafeMutableRawBufferPointer
    private var head = 0
    private var tail = 0
    /// Bytes of the current DATA body not yet consumed, and the body's whole length.
    private var dataRemaining = 0
    private var dataLength = 0
    /// What the caller is waiting for, for timeout messages.
    public var waitingFor = "data"
    /// When the bytes in the buffer arrived: the return of the recv() that brought them
    /// (a frame returned by `nextControl` arrived whole then).
    public private(set) var filledAt: UInt64 = 0
    /// The receiving app's loop (the field study's `send-loop` method with an app cost):
    /// each frame is taken one message time after the one before, DATA is counted when
    /// taken, and the socket is read no faster than the app takes frames. nil: frames
    /// are taken as they arrive.
    public var appLoop: AppReceiveLoop?
    /// When the frame `nextControl` returned last was taken: `filledAt`, or with
    /// `appLoop` the app's time for it.
    public private(set) var takenAt: UInt64 = 0
    /// Bytes one read may bring while `appLoop` paces the reads: about what one receive
    /// callback would hand the app, so the kernel's buffer, not this one, holds the rest.
    static let appPacedReadBytes = 16 << 10

    public init(_ stream: any ByteStream, capacity: Int = 256 << 10) {
        self.stream = stream
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The next control frame, counting DATA frames into `count` on the way.
    /// Returns nil on an orderly end of stream at a frame boundary.
    public func nextControl(counting count: inout ReceivedMessages) throws -> (type: MessageType, body: UnsafeRawBufferPointer)? {
        while true {
            if dataRemaining > 0 {
                if head == tail {
                    guard try fill() else { throw TransportError("peer closed the connection inside a DATA frame") }
                }
                let n = min(dataRemaining, tail - head)
                head += n
                dataRemaining -= n
                count.bytesArrived(n, at: filledAt)
                if dataRemaining == 0 { count.messageArrived(at: take()) }
                continue
            }
            let available = tail - head
            if available >= StreamFraming.headerSize {
                let header = UnsafeRawBufferPointer(rebasing: storage[head..<tail])
                let length = Int(header.readBE(UInt32.self, at: 0))
                let rawType = header[4]
                guard let type = MessageType(rawValue: rawType) else {
                    throw TransportError("protocol error: unknown frame type 0x\(String(rawType, radix: 16))")
                }
                if type == .data {
                    guard length <= StreamFraming.maxMessageSize else {
                        throw TransportError("protocol error: DATA frame of \(length) bytes exceeds the \(StreamFraming.maxMessageSize)-byte limit")
                    }
                    head += StreamFraming.headerSize
                    if length == 0 { count.messageArrived(at: take()) } else { dataRemaining = length }
                    dataLength = length
                    continue
                }
                guard length <= StreamFraming.maxBody(type) else {
                    throw TransportError("protocol error: \(type) frame with a \(length)-byte body")
                }
                if available >= StreamFraming.headerSize + length {
                    let start = head + StreamFraming.headerSize
                    head = start + length
                    takenAt = take()
                    return (type, UnsafeRawBufferPointer(rebasing: storage[start..<head]))
                }
            }
            guard try fill() else {
                if head == tail { return nil }
                throw TransportError("peer closed the connection inside a frame header")
            }
        }
    }

    /// Body bytes of a DATA frame begun but not finished, already added to the count's
    /// `bytes`: a connection cut there leaves them counted without their message, so a
    /// server resuming the client takes them off again (StreamResumeHost.swift).
    public var partialDataBytes: Int { dataRemaining > 0 ? dataLength - dataRemaining : 0 }

    /// True when the next frame is a control frame already in the buffer whole, so
    /// `nextControl` returns it without reading: a server answers everything one
    /// read brought before it writes (`StreamWorkloadServer`).
    public var hasBufferedControlFrame: Bool {
        guard dataRemaining == 0, tail - head >= StreamFraming.headerSize else { return false }
        let header = UnsafeRawBufferPointer(rebasing: storage[head..<tail])
        guard let type = MessageType(rawValue: header[4]), type != .data else { return false }
        return tail - head >= StreamFraming.headerSize + Int(header.readBE(UInt32.self, at: 0))
    }

    /// When the app takes the message whose last byte is in the buffer now.
    @inline(__always)
    private func take() -> UInt64 {
        guard appLoop != nil else { return filledAt }
        return appLoop!.take(arrivedAt: filledAt)
    }

    /// Appends one recv() worth of bytes; false on end of stream.
    private func fill() throws -> Bool {
        if head == tail {
            head = 0
            tail = 0
        } else if storage.count - tail < StreamFraming.headerSize + StreamFraming.maxReportBody {
            // Move the partial frame to the front so a whole control frame fits.
            let n = tail - head
            storage.baseAddress!.copyMemory(from: storage.baseAddress! + head, byteCount: n)
            head = 0
            tail = n
        }
        var free = UnsafeMutableRawBufferPointer(rebasing: storage[tail...])
        if let appLoop {
            appLoop.waitUntilReady()
            free = UnsafeMutableRawBufferPointer(rebasing: free.prefix(Self.appPacedReadBytes))
        }
        guard let n = try stream.readSome(free) else {
            throw TransportError("timed out waiting for \(waitingFor) (cell deadline)")
        }
        if n == 0 { return false }
        filledAt = MonotonicClock.now()
        tail += n
        return true
    }
}

/// A reliable byte stream the frames travel on: a socket, or a TLS session over one.
public protocol ByteStream: AnyObject {
    /// Reads up to `buffer.count` bytes: 0 at an orderly end of stream, nil when a
    /// receive timeout expired.
    func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int?
    /// Writes every byte; false when the peer has gone away.
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool
    /// Shuts the connection under the stream down in both directions, at once and
    /// from any thread: a call blocked in it on another thread returns with an error.
    /// Nothing is said on the wire first (no TLS close_notify); the owner still closes it.
    func shutdown()
}

extension Socket: ByteStream {
    public func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? { try receive(buffer) }
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool { try sendAll(bytes) }
}
