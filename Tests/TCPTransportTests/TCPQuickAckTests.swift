import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchSystem
import Testing

@testable import TCPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// tcp's `quickAck`: the stream under the workload sets TCP_QUICKACK after every read.
/// Linux reports the socket's ACK mode through the same option (1: quick, 0: delayed,
/// the "pingpong" mode an interactive connection falls into); a socket put into the
/// delayed mode must come out of it on the first read through the stream, and stay in
/// it on a plain read.
@Suite("TCP quickAck", .timeLimit(.minutes(1)))
struct TCPQuickAckTests {
    static let tcp = Int32(IPPROTO_TCP)

    /// A connected loopback pair: (client, the server's accepted socket).
    static func pair() throws -> (Socket, Socket) {
        let listener = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        defer { listener.close() }
        try listener.bind(SocketAddress(host: "127.0.0.1", port: 0))
        try listener.listen()
        let client = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try client.connect(try listener.localAddress())
        let server = try #require(try listener.accept())
        return (client, server)
    }

    static func ackMode(_ s: Socket) throws -> Int32 { try s.getOption(tcp, TCP_QUICKACK, as: Int32.self, initial: -1, "TCP_QUICKACK") }

    /// Puts `receiver` into the delayed mode, has `sender` send 100 bytes, reads them
    /// through `stream`; returns the ACK mode after the read and the nanoseconds from
    /// the send to that answer.
    static func modeAfterRead(_ stream: any ByteStream, receiver: Socket, sender: Socket) throws -> (mode: Int32, nanos: UInt64) {
        try receiver.setOption(tcp, TCP_QUICKACK, Int32(0), "TCP_QUICKACK")
        #expect(try ackMode(receiver) == 0)
        let bytes = [UInt8](repeating: 7, count: 100)
        let sentAt = MonotonicClock.now()
        #expect(try bytes.withUnsafeBytes { try sender.sendAll($0) })
        var buffer = [UInt8](repeating: 0, count: 100)
        var got = 0
        while got < 100 {
            let n = try buffer.withUnsafeMutableBytes { try stream.readSome(UnsafeMutableRawBufferPointer(rebasing: $0[got...])) }
            got += try #require(n)
            #expect(n != 0, "the sender closed early")
        }
        let mode = try ackMode(receiver)
        return (mode, MonotonicClock.now() - sentAt)
    }

    @Test("a read through the quickAck stream leaves the socket acknowledging at once; a plain read leaves it delayed")
    func readRearmsQuickAck() throws {
        let (client, server) = try Self.pair()
        defer {
            client.close()
            server.close()
        }
        let quick = TCPOptions.withQuickAck.stream(over: server)
        #expect(quick is QuickAckStream)
        #expect(try Self.modeAfterRead(quick, receiver: server, sender: client).mode == 1)
        let plain = TCPOptions().stream(over: server)
        #expect(plain is Socket)
        let after = try Self.modeAfterRead(plain, receiver: server, sender: client)
        // Linux leaves the delayed mode by itself when its delayed-ACK timer (40 ms at
        // the least) fires; a host that stalled this thread that long proves nothing.
        if after.nanos < 30_000_000 {
            #expect(after.mode == 0, "a plain read changed the ACK mode")
        }
    }

    @Test("quickAck is read from the matrix only when written, so older matrices keep their cell ids")
    func option() throws {
        let path = JSONPath.root.key("transports").index(0).key("options")
        let written = try PluginOptions(["quickAck": true], path: path)
        #expect(try TCPPlugin(options: written).options.quickAck)
        #expect(written.effectiveJSON["quickAck"] == true)
        let absent = try PluginOptions([:] as JSONValue, path: path)
        #expect(try TCPPlugin(options: absent).options.quickAck == false)
        #expect(absent.effectiveJSON["quickAck"] == nil)
        let bad = try PluginOptions(["quickAck": 1], path: path)
        let error = #expect(throws: InputError.self) { _ = try TCPPlugin(options: bad) }
        #expect(error?.problems.first?.path == "$.transports[0].options.quickAck")
    }
}

extension TCPOptions {
    static var withQuickAck: TCPOptions {
        var o = TCPOptions()
        o.quickAck = true
        return o
    }
}
