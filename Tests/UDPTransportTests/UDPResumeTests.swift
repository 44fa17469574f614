import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import UDPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// udp's resume (docs/protocol/udp.md, "Reconnect") against the real server on
/// loopback: RESUMED says how many DATA datagrams arrived and where to carry on (one
/// past the highest sequence), and a client that carries on from there ends with
/// every datagram counted once.
@Suite("UDP resume: the server's next sequence", .timeLimit(.minutes(1)))
struct UDPResumeTests {
    static let session: UInt32 = 0x5E55
    static func datagram(_ type: UInt8, _ seq: UInt64, _ fields: [UInt64] = [], payload: Int = 0) -> [UInt8] {
        [type, 0x01, 0x00, 0x00] + session.wireBytes + seq.wireBytes + UInt64(1).wireBytes
            + fields.flatMap(\.wireBytes) + [UInt8](repeating: 0xAB, count: payload)
    }

    /// The u64 fields of the next datagram of `type`, skipping others.
    func next(_ type: UInt8, on s: Socket) throws -> [UInt64] {
        var rx = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = try #require(try rx.withUnsafeMutableBytes { try s.receive($0) }, "no \(type) within 2 s")
            guard n >= 24, rx[0] == type else { continue }
            return stride(from: 24, to: n - 7, by: 8).map { i in rx[i..<(i + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        }
    }

    @Test("DATA 0, 1, 2 and 5 of 10: RESUMED {4, 6}; the client sends 3, 4 and 6-9 and the REPORT counts 10, no duplicate")
    func resumeFromTheHighestSequence() async throws {
        let payload = Payload(count: 10, size: 64)
        let cell = makeCell(payload: payload, probes: 0)
        let plugin = UDPPlugin(UDPOptions(keepAlive: UDPKeepAlive(intervalMs: 100, missed: 3)))
        let server = try await plugin.startServer(cell)
        let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try s.setReceiveTimeout(nanoseconds: 2_000_000_000)
        try s.connect(server.address)
        func send(_ d: [UInt8]) throws { _ = try d.withUnsafeBytes { try s.send($0) } }
        try send(Self.datagram(0x01, 0, [10, 64]))
        _ = try next(0x02, on: s)
        for seq: UInt64 in [0, 1, 2, 5] { try send(Self.datagram(0x10, seq, payload: 64)) }
        try send(Self.datagram(0x07, 3))
        #expect(try next(0x08, on: s) == [4, 6], "received 4, carry on at 6")
        for seq: UInt64 in [3, 4, 6, 7, 8, 9] { try send(Self.datagram(0x10, seq, payload: 64)) }
        try send(Self.datagram(0x11, 0, [10, 640, 2_000_000]))
        let report = try next(0x12, on: s)
        #expect(Array(report.prefix(4)) == [10, 640, 2, 0], "received, bytes, reordered (3 and 4 came late), duplicated")
        try send(Self.datagram(0x13, 0))
        _ = try next(0x14, on: s)
        s.close()
        try await server.finish()
    }
}
