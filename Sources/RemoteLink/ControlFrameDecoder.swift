/// Turns a byte stream into control messages, whatever chunks it arrives in.
///
/// Memory is bounded by one frame: a chunk is consumed only up to the end of the frame
/// being assembled, that frame is decoded and dropped, and the rest of the chunk goes
/// to the next one; a header announcing more than `ControlFraming.maxBodySize` is
/// refused before anything is reserved. A reader that asks for no more than
/// `bytesWanted` at a time never holds more than one frame in its own buffers either.
///
/// After the first error the stream's framing is lost: every later call throws it again.
public struct ControlFrameDecoder: Sendable {
    private var pending: [UInt8] = []
    /// The frame being assembled, once its header is complete.
    private var current: (type: ControlMessageType, bodyLength: Int)?
    private var failure: ControlProtocolError?

    public init() {}

    /// Bytes the decoder needs before the current header or frame is complete: a reader
    /// that reads at most this many never reads past the frame.
    var bytesWanted: Int {
        if let current { return ControlFraming.headerSize + current.bodyLength - pending.count }
        return ControlFraming.headerSize - pending.count
    }

    /// Bytes held of the frame being assembled (at most `ControlFraming.maxFrameSize`).
    public var bufferedByteCount: Int { pending.count }

    /// Whether the decoder is between frames (nothing of a next frame received yet).
    public var isAtFrameBoundary: Bool { pending.isEmpty }

    /// Feeds the next bytes of the stream; returns the messages they completed, in order.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(ControlProtocolError) -> [ControlMessage] {
        if let failure { throw failure }
        do {
            return try consume(chunk)
        } catch {
            failure = error
            pending = []
            current = nil
            throw error
        }
    }

    /// Declares the end of the stream: throws `.truncatedFrame` when it ends inside a frame.
    public func finish() throws(ControlProtocolError) {
        if let failure { throw failure }
        guard pending.isEmpty else {
            throw .truncatedFrame(received: pending.count, expected: pending.count + bytesWanted)
        }
    }

    private mutating func consume(_ chunk: some Collection<UInt8>) throws(ControlProtocolError) -> [ControlMessage] {
        var messages: [ControlMessage] = []
        var rest = chunk[...]
        while !rest.isEmpty {
            let n = min(bytesWanted, rest.count)
            pending += rest.prefix(n)
            rest = rest.dropFirst(n)
            if current == nil {
                try ControlFraming.checkPrefix(pending)
                guard pending.count == ControlFraming.headerSize else { continue }
                let (type, length) = try ControlFraming.parseHeader(pending)
                current = (type, length)
                pending.reserveCapacity(ControlFraming.headerSize + length)
            }
            // A header-only frame (BUSY, BYE) completes with its header, in the same pass.
            if let frame = current, bytesWanted == 0 {
                messages.append(try ControlBody.decode(frame.type, pending[ControlFraming.headerSize...]))
                pending.removeAll(keepingCapacity: pending.capacity <= 4096)
                current = nil
            }
        }
        return messages
    }
}
