import PeerBenchPlugin
import PeerBenchSystem

/// The control protocol's frame layout (docs/protocol/control.md):
///
///     offset 0  2 bytes  magic "PB" (0x50 0x42)
///     offset 2  1 byte   frame format version (1)
///     offset 3  1 byte   message type (`ControlMessageType`)
///     offset 4  4 bytes  body length, unsigned big-endian, header excluded
///     offset 8  ...      body
///
/// The magic and version make a stream that lost its framing (or is not this protocol)
/// fail on the first header instead of being read as lengths.
public enum ControlFraming {
    public static let magic: (UInt8, UInt8) = (0x50, 0x42)
    /// The header layout this build writes and reads.
    static let frameVersion: UInt8 = 1
    public static let headerSize = 8
    /// The largest frame, header included: a bound on what one peer makes the other
    /// buffer. Cell requests and results are small JSON objects; 64 KiB leaves ample room.
    public static let maxFrameSize = 64 * 1024
    /// The largest body a header may announce; checked before any buffer is reserved.
    public static let maxBodySize = maxFrameSize - headerSize

    /// The message as one frame.
    /// - Throws: `.frameTooLarge` when the body would exceed `maxBodySize`, `.invalidJSON`
    ///   when a JSON-bodied message does not carry an object.
    public static func encode(_ message: ControlMessage) throws(ControlProtocolError) -> [UInt8] {
        let body = try ControlBody.encode(message)
        guard body.count <= maxBodySize else { throw .frameTooLarge(bodyLength: UInt32(clamping: body.count)) }
        var frame: [UInt8] = [magic.0, magic.1, frameVersion, message.type.rawValue]
        frame.reserveCapacity(headerSize + body.count)
        frame += UInt32(body.count).bigEndianBytes
        frame += body
        return frame
    }

    /// Checks a complete header and returns the message type and the body length it announces.
    static func parseHeader(_ h: some RandomAccessCollection<UInt8>) throws(ControlProtocolError) -> (ControlMessageType, Int) {
        let b = Array(h)
        try checkPrefix(b)
        guard let type = ControlMessageType(rawValue: b[3]) else { throw .unknownType(b[3]) }
        let length = UInt32(b[4]) << 24 | UInt32(b[5]) << 16 | UInt32(b[6]) << 8 | UInt32(b[7])
        guard length <= UInt32(maxBodySize) else { throw .frameTooLarge(bodyLength: length) }
        return (type, Int(length))
    }

    /// Checks as much of the magic and version as `prefix` holds, so garbage fails on its
    /// first bytes rather than after a whole header.
    static func checkPrefix(_ prefix: [UInt8]) throws(ControlProtocolError) {
        if prefix.count >= 2, prefix[0] != magic.0 || prefix[1] != magic.1 { throw .badMagic(prefix[0], prefix[1]) }
        if prefix.count >= 3, prefix[2] != frameVersion { throw .unsupportedFrameVersion(prefix[2]) }
    }
}
