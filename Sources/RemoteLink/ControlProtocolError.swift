/// Bytes that are not a valid control frame (docs/protocol/control.md). Every malformed
/// input becomes one of these, with a sentence naming what is wrong; the decoder never traps.
public enum ControlProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first two bytes of a frame are not the magic "PB".
    case badMagic(UInt8, UInt8)
    /// The frame format version byte is not one this build reads.
    case unsupportedFrameVersion(UInt8)
    /// The type byte names no message this version defines.
    case unknownType(UInt8)
    /// The header announces a body longer than `ControlFraming.maxBodySize` (checked before allocating).
    case frameTooLarge(bodyLength: UInt32)
    /// The stream ended inside a frame: `received` of `expected` bytes.
    case truncatedFrame(received: Int, expected: Int)
    /// The body does not have the layout its type requires.
    case malformedBody(ControlMessageType, String)
    /// A text field is not valid UTF-8.
    case invalidUTF8(ControlMessageType, field: String)
    /// A JSON body does not parse, or is not a JSON object.
    case invalidJSON(ControlMessageType, String)
    /// A well-formed message where the session expects another (`expected` names it).
    case unexpectedMessage(ControlMessageType, expected: String)

    public var description: String {
        func hex(_ b: UInt8) -> String { "0x" + (b < 16 ? "0" : "") + String(b, radix: 16) }
        switch self {
        case .badMagic(let a, let b):
            return "control protocol: a frame must start with \"PB\" (0x50 0x42), got \(hex(a)) \(hex(b))"
        case .unsupportedFrameVersion(let v):
            return "control protocol: frame format version \(v) is not supported (this build reads \(ControlFraming.frameVersion))"
        case .unknownType(let t):
            return "control protocol: unknown message type \(hex(t))"
        case .frameTooLarge(let n):
            return "control protocol: a frame body of \(n) bytes exceeds the limit of \(ControlFraming.maxBodySize) bytes"
        case .truncatedFrame(let received, let expected):
            return "control protocol: the stream ended inside a frame (\(received) of \(expected) bytes)"
        case .malformedBody(let type, let why):
            return "control protocol: malformed \(type) body: \(why)"
        case .invalidUTF8(let type, let field):
            return "control protocol: \(type) \(field) is not valid UTF-8"
        case .invalidJSON(let type, let why):
            return "control protocol: \(type) body is not a JSON object: \(why)"
        case .unexpectedMessage(let type, let expected):
            return "control protocol: expected \(expected), got \(type)"
        }
    }
}
