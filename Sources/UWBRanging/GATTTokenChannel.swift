import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The Bluetooth-LE-GATT-like channel: the serving side is a GATT server with a
/// token service of two characteristics, one the client writes its token into
/// (long write: prepare writes + execute write) and one it reads the server's
/// token from (read + read blob). ATT_MTU is 185, so each operation carries at most
/// 182 bytes of token (ATT_MTU − 3) and a 264-byte token takes two operations each
/// way. Before each request the client waits for its next connection event, so
/// every operation costs one connection interval (30 ms by default [A]).
///
/// The ATT-like PDUs travel over the cell's TCP connection, each prefixed with its
/// length (standing in for the L2CAP basic header); docs/protocol/uwb.md has the
/// byte layout and where it departs from ATT.
public struct GATTTokenChannel: TokenChannel {
    public static let defaultConnectionIntervalMs = 30.0
    /// ATT_MTU both sides offer (the figure iOS negotiates [D]).
    public static let mtu = 185
    /// Token bytes per operation: ATT_MTU − 3.
    static var payloadPerOperation: Int { mtu - 3 }

    /// Attribute handles of the token service.
    static let writeHandle: UInt16 = 0x0003, readHandle: UInt16 = 0x0005
    /// Longest PDU on the wire: a prepare write with 182 bytes of value is
    /// ATT_MTU + 2 (the one departure from ATT, which allows ATT_MTU − 5 of value there).
    static var maxPDU: Int { mtu + 2 }
    /// ATT's limit on an attribute value.
    static let maxAttributeLength = 512

    enum Opcode: UInt8 {
        case errorResponse = 0x01, exchangeMTURequest = 0x02, exchangeMTUResponse = 0x03
        case readRequest = 0x0A, readResponse = 0x0B, readBlobRequest = 0x0C, readBlobResponse = 0x0D
        case prepareWriteRequest = 0x16, prepareWriteResponse = 0x17, executeWriteRequest = 0x18, executeWriteResponse = 0x19
    }

    /// ATT error codes used here.
    enum ATTError: UInt8 {
        case requestNotSupported = 0x06, invalidOffset = 0x07, attributeNotFound = 0x0A
        case invalidAttributeValueLength = 0x0D
    }

    public var kind: TokenChannelKind { .gatt }
    public var connectionIntervalMs: Double

    public init(connectionIntervalMs: Double = defaultConnectionIntervalMs) {
        self.connectionIntervalMs = connectionIntervalMs
    }

    /// Operations needed to move `bytes` of token one way: ceil(bytes / 182), at
    /// least one (a read of an exact multiple of 182 needs one more, empty, read blob).
    public static func operations(forTokenBytes bytes: Int) -> Int {
        max(1, (bytes + payloadPerOperation - 1) / payloadPerOperation)
    }

    // MARK: Client (GATT client, the central)

    public func exchange(_ token: [UInt8], over connection: Socket, start: UInt64, deadline: UInt64) throws -> TokenExchange {
        guard token.count <= Self.maxAttributeLength else {
            throw TokenChannelError("a \(token.count)-byte token exceeds the 512-byte attribute limit of GATT")
        }
        var link = ClientLink(
            connection: connection, deadline: deadline, interval: UInt64(connectionIntervalMs * 1e6),
            anchor: MonotonicClock.now())  // the connection's first event
        let chunk = try Self.exchangeMTU(&link)
        let writes = try Self.writeToken(token, chunk: chunk, &link)
        let (peer, reads) = try Self.readPeerToken(chunk: chunk, &link)
        return TokenExchange(
            peerTokenBytes: peer, elapsedNanos: MonotonicClock.elapsed(since: start),
            writeOperations: writes, readOperations: reads, totalOperations: link.total)
    }

    /// The client's requests on one connection, each at a connection event.
    struct ClientLink {
        let connection: Socket
        let deadline: UInt64
        /// The connection interval, ns (0: no waiting).
        let interval: UInt64
        /// The connection's first event; the others follow every `interval`.
        let anchor: UInt64
        /// Requests sent so far.
        var total = 0

        /// One request per connection event: wait for the next event, send, await the response.
        mutating func transact(_ request: [UInt8], _ what: String) throws -> [UInt8] {
            if interval > 0 {
                let now = MonotonicClock.now()
                let next = anchor + ((now - anchor) / interval + 1) * interval
                GATTTokenChannel.sleep(until: next)
            }
            total += 1
            try GATTTokenChannel.writePDU(connection, request, what)
            let response = try GATTTokenChannel.readPDU(connection, deadline: deadline, "the response to \(what)")
            if response.first == Opcode.errorResponse.rawValue {
                let code = response.count >= 5 ? response[4] : 0
                throw TokenChannelError("the GATT server refused \(what) with ATT error 0x\(String(code, radix: 16).leftPadded(2))")
            }
            return response
        }
    }

    /// 1. MTU exchange; returns the token bytes per operation both sides allow.
    static func exchangeMTU(_ link: inout ClientLink) throws -> Int {
        var w = ByteWriter()
        w.u8(Opcode.exchangeMTURequest.rawValue)
        w.u16(UInt16(Self.mtu))
        let mtuResponse = try link.transact(w.bytes, "the MTU exchange")
        var r = ByteReader(mtuResponse)
        guard r.u8() == Opcode.exchangeMTUResponse.rawValue, let serverMTU = r.u16() else {
            throw TokenChannelError("malformed MTU exchange response")
        }
        let chunk = Int(min(UInt16(Self.mtu), serverMTU)) - 3
        guard chunk > 0 else { throw TokenChannelError("the GATT server offered an ATT_MTU of \(serverMTU)") }
        return chunk
    }

    /// 2. Long write of our token: prepare writes, then execute; returns the prepare writes.
    static func writeToken(_ token: [UInt8], chunk: Int, _ link: inout ClientLink) throws -> Int {
        var writes = 0
        var offset = 0
        repeat {
            let part = Array(token[offset..<min(token.count, offset + chunk)])
            var p = ByteWriter()
            p.u8(Opcode.prepareWriteRequest.rawValue)
            p.u16(Self.writeHandle)
            p.u16(UInt16(offset))
            p.raw(part)
            let echo = try link.transact(p.bytes, "prepare write at offset \(offset)")
            // ATT echoes the request so the client can verify it; a mismatch means corruption.
            guard echo.count == p.bytes.count, echo.first == Opcode.prepareWriteResponse.rawValue, echo.dropFirst() == p.bytes.dropFirst() else {
                throw TokenChannelError("the prepare write response at offset \(offset) does not echo the request")
            }
            writes += 1
            offset += part.count
        } while offset < token.count
        let executed = try link.transact([Opcode.executeWriteRequest.rawValue, 0x01], "execute write")
        guard executed == [Opcode.executeWriteResponse.rawValue] else { throw TokenChannelError("malformed execute write response") }
        return writes
    }

    /// 3. Read the server's token: read, then read blob while responses are full;
    /// returns the token and the reads.
    static func readPeerToken(chunk: Int, _ link: inout ClientLink) throws -> (token: [UInt8], reads: Int) {
        var reads = 0
        var peer: [UInt8] = []
        while true {
            var q = ByteWriter()
            if reads == 0 {
                q.u8(Opcode.readRequest.rawValue)
                q.u16(Self.readHandle)
            } else {
                q.u8(Opcode.readBlobRequest.rawValue)
                q.u16(Self.readHandle)
                q.u16(UInt16(peer.count))
            }
            let response = try link.transact(q.bytes, reads == 0 ? "read" : "read blob at offset \(peer.count)")
            let expected = reads == 0 ? Opcode.readResponse : Opcode.readBlobResponse
            guard response.first == expected.rawValue else {
                throw TokenChannelError("malformed read response (opcode 0x\(String(response.first ?? 0, radix: 16)))")
            }
            reads += 1
            peer += response.dropFirst()
            if response.count - 1 < chunk { break }
            guard peer.count < Self.maxAttributeLength else { throw TokenChannelError("the server's token exceeds 512 bytes") }
        }
        return (peer, reads)
    }

    // MARK: Server (GATT server, the peripheral)

    public func serve(_ token: [UInt8], over connection: Socket, deadline: UInt64) throws -> TokenExchange {
        let start = MonotonicClock.now()
        var server = ServerState(token: token)
        var total = 0
        // Serve until the client has written its token and read ours to the end (a
        // response shorter than a full operation); the connection stays up afterwards.
        while server.written == nil || !server.readComplete, let pdu = try Self.readPDUOrEnd(connection, deadline: deadline) {
            total += 1
            let response = server.respond(to: pdu)
            try Self.writePDU(connection, response.pdu, response.what)
        }
        guard let written = server.written, let tokenAt = server.tokenAt else {
            throw TokenChannelError("the GATT client disconnected without writing its token")
        }
        guard server.readComplete else { throw TokenChannelError("the GATT client disconnected before reading the whole token") }
        return TokenExchange(
            peerTokenBytes: written, elapsedNanos: tokenAt - start,
            writeOperations: server.reads, readOperations: server.writes, totalOperations: total)
    }

    /// The token service's state while a client writes its token and reads ours.
    struct ServerState {
        let token: [UInt8]
        var mtu = 23  // ATT's default until the client exchanges MTUs
        var prepared: [UInt8] = []
        /// The client's token, once its long write was executed, and when.
        var written: [UInt8]?
        var tokenAt: UInt64?
        var writes = 0, reads = 0
        /// The client has read our token to its end.
        var readComplete = false

        init(token: [UInt8]) { self.token = token }

        /// The response to one request PDU, and what it is (for a failed write's message).
        mutating func respond(to pdu: [UInt8]) -> (pdu: [UInt8], what: String) {
            var r = ByteReader(pdu)
            let op = r.u8() ?? 0
            var out = ByteWriter()
            switch Opcode(rawValue: op) {
            case .exchangeMTURequest?:
                guard let clientMTU = r.u16() else { return (Self.error(op, 0, .invalidAttributeValueLength), "an error") }
                mtu = max(23, min(Int(clientMTU), GATTTokenChannel.mtu))
                out.u8(Opcode.exchangeMTUResponse.rawValue)
                out.u16(UInt16(GATTTokenChannel.mtu))
            case .prepareWriteRequest?:
                guard let handle = r.u16(), let offset = r.u16() else { return (Self.error(op, 0, .invalidAttributeValueLength), "an error") }
                let value = r.raw(r.remaining) ?? []
                if handle != GATTTokenChannel.writeHandle {
                    out.raw(Self.error(op, handle, .attributeNotFound))
                } else if Int(offset) != prepared.count {
                    out.raw(Self.error(op, handle, .invalidOffset))
                } else if value.count > mtu - 3 || prepared.count + value.count > GATTTokenChannel.maxAttributeLength {
                    out.raw(Self.error(op, handle, .invalidAttributeValueLength))
                } else {
                    prepared += value
                    writes += 1
                    out.u8(Opcode.prepareWriteResponse.rawValue)
                    out.raw(pdu.dropFirst())
                }
            case .executeWriteRequest?:
                if r.u8() == 0x01 {
                    written = prepared
                    tokenAt = MonotonicClock.now()
                }
                prepared = []
                out.u8(Opcode.executeWriteResponse.rawValue)
            case .readRequest?, .readBlobRequest?:
                let handle = r.u16() ?? 0
                let offset = op == Opcode.readBlobRequest.rawValue ? Int(r.u16() ?? 0) : 0
                if handle != GATTTokenChannel.readHandle {
                    out.raw(Self.error(op, handle, .attributeNotFound))
                } else if offset > token.count {
                    out.raw(Self.error(op, handle, .invalidOffset))
                } else {
                    reads += 1
                    out.u8(op + 1)
                    let part = token[offset..<min(token.count, offset + mtu - 3)]
                    out.raw(part)
                    if part.count < mtu - 3 { readComplete = true }
                }
            default:
                out.raw(Self.error(op, 0, .requestNotSupported))
            }
            return (out.bytes, "a response")
        }

        /// An ATT error response to `request` on `handle`.
        static func error(_ request: UInt8, _ handle: UInt16, _ code: ATTError) -> [UInt8] {
            var e = ByteWriter()
            e.u8(Opcode.errorResponse.rawValue)
            e.u8(request)
            e.u16(handle)
            e.u8(code.rawValue)
            return e.bytes
        }
    }

    // MARK: Framing: length u16 BE | PDU

    static func writePDU(_ s: Socket, _ pdu: [UInt8], _ what: String) throws {
        var w = ByteWriter(capacity: pdu.count + 2)
        w.u16(UInt16(pdu.count))
        w.raw(pdu)
        try s.write(w.bytes, what)
    }

    static func readPDU(_ s: Socket, deadline: UInt64, _ what: String) throws -> [UInt8] {
        let h = try s.read(2, before: deadline, what)
        let length = Int(h[0]) << 8 | Int(h[1])
        guard length >= 1, length <= maxPDU else { throw TokenChannelError("\(what): PDU length \(length) is outside 1…\(maxPDU)") }
        return try s.read(length, before: deadline, what)
    }

    /// The next PDU, or nil when the client closed the connection cleanly between PDUs.
    static func readPDUOrEnd(_ s: Socket, deadline: UInt64) throws -> [UInt8]? {
        var first = [UInt8](repeating: 0, count: 1)
        let now = MonotonicClock.now()
        guard deadline > now else { throw TokenChannelError("timed out waiting for the GATT client") }
        try s.setReceiveTimeout(nanoseconds: deadline - now)
        let n = try first.withUnsafeMutableBytes { try s.receive($0) }
        guard let n else { throw TokenChannelError("timed out waiting for the GATT client") }
        if n == 0 { return nil }
        let second = try s.read(1, before: deadline, "a PDU length")
        let length = Int(first[0]) << 8 | Int(second[0])
        guard length >= 1, length <= maxPDU else { throw TokenChannelError("PDU length \(length) is outside 1…\(maxPDU)") }
        return try s.read(length, before: deadline, "a PDU")
    }

    static func sleep(until t: UInt64) {
        var ts = timespec(tv_sec: Int(t / 1_000_000_000), tv_nsec: Int(t % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
