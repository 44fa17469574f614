import PeerBenchPlugin
public import PeerBenchSystem

/// The reliable message channel: one framed message each way over TCP, the way an
/// app sends its token over a Multipeer Connectivity session. The client speaks
/// first; the server answers with its own token.
public struct MessageTokenChannel: TokenChannel {
    /// "PBTM".
    static let magic: [UInt8] = [0x50, 0x42, 0x54, 0x4D]
    static let version: UInt8 = 1
    /// Upper bound of a message body; anything larger is a protocol error, not a token.
    static let maxBody = 4096

    public var kind: TokenChannelKind { .message }

    public init() {}

    public func exchange(_ token: [UInt8], over connection: Socket, start: UInt64, deadline: UInt64) throws -> TokenExchange {
        try connection.write(Self.frame(token), "the token message")
        let peer = try Self.readFrame(connection, deadline: deadline)
        return TokenExchange(
            peerTokenBytes: peer, elapsedNanos: MonotonicClock.elapsed(since: start),
            writeOperations: 1, readOperations: 1, totalOperations: 2)
    }

    public func serve(_ token: [UInt8], over connection: Socket, deadline: UInt64) throws -> TokenExchange {
        let start = MonotonicClock.now()
        let peer = try Self.readFrame(connection, deadline: deadline)
        try connection.write(Self.frame(token), "the token message")
        return TokenExchange(
            peerTokenBytes: peer, elapsedNanos: MonotonicClock.elapsed(since: start),
            writeOperations: 1, readOperations: 1, totalOperations: 2)
    }

    /// magic (4) | version (1) | reserved 0 (1) | body length u16 BE (2) | body.
    static func frame(_ body: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: body.count + 8)
        w.raw(magic)
        w.u8(version)
        w.u8(0)
        w.u16(UInt16(min(body.count, Int(UInt16.max))))
        w.raw(body.prefix(Int(UInt16.max)))
        return w.bytes
    }

    static func readFrame(_ s: Socket, deadline: UInt64) throws -> [UInt8] {
        var r = ByteReader(try s.read(8, before: deadline, "the token message header"))
        let m = r.raw(4)!, v = r.u8()!, _ = r.u8()!, length = Int(r.u16()!)
        guard m == magic else {
            throw TokenChannelError(
                "the peer does not speak the message token channel (got 0x\(m.map { String($0, radix: 16).leftPadded(2) }.joined()))")
        }
        guard v == version else { throw TokenChannelError("message token channel version \(v) is not supported (this build speaks \(version))") }
        guard length <= maxBody else { throw TokenChannelError("token message of \(length) bytes exceeds the \(maxBody)-byte limit") }
        return try s.read(length, before: deadline, "the token message body")
    }
}
