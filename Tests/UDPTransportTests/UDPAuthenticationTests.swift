import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing
import TransportTestSupport

@testable import UDPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// Per-cell authentication of the udp data plane (issue 24, finding 3): spoofed
/// HELLOs with the client's address captured 6 of 6 udp cells, because the server
/// locked onto the first HELLO. With the cell's data-plane key (a remote link's), the
/// server takes only datagrams that carry the cell's tag; the rest are dropped and
/// counted in `extra.udp.unauthenticated_dropped`.
@Suite("UDP data plane authentication", .serialized, .timeLimit(.minutes(3)))
struct UDPAuthenticationTests {
    static func authenticatedCell(_ payload: Payload, probes: Int = 5) throws -> CellContext {
        var cell = makeCell(payload: payload, probes: probes)
        cell.dataKey = try CellDataKey.random()
        return cell
    }

    @Test("an authenticated cell measures as before, its datagrams 8 bytes longer")
    func authenticatedCellRuns() async throws {
        let payload = Payload(count: 2_000, size: 1_024)
        let cell = try Self.authenticatedCell(payload)
        let server = try await UDPPlugin().startServer(cell)
        let m = try await UDPPlugin().runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.delivery?.receivedMessages == payload.count)
        #expect(m.delivery?.receivedBytes == payload.count * payload.size)
        let udp = try #require(m.extra["udp"]?.objectValue)
        #expect(udp["datagram_bytes"] == JSONValue(24 + 1_024 + 8))
        #expect(udp["authenticated"] == .bool(true))
        #expect(udp["unauthenticated_dropped"] == JSONValue(0))
    }

    @Test("a stranger's HELLO with the client's address and the cell's count does not take the cell")
    func spoofedHelloIsDropped() async throws {
        let payload = Payload(count: 1_000, size: 256)
        let cell = try Self.authenticatedCell(payload)
        let server = try await UDPPlugin().startServer(cell)
        // From 127.0.0.1, as the client: a well-formed HELLO with the cell's own count.
        let stranger = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        defer { stranger.close() }
        let hello =
            [0x01, 0x01, 0x00, 0x00] + UInt32(0xBAD).wireBytes + UInt64(0).wireBytes + UInt64(1).wireBytes
            + UInt64(payload.count).wireBytes + UInt64(payload.size).wireBytes
        for _ in 0..<3 { _ = try hello.withUnsafeBytes { try stranger.send($0, to: server.address) } }
        try await Task.sleep(nanoseconds: 50_000_000)
        let m = try await UDPPlugin().runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery?.receivedMessages == payload.count)
        #expect(m.extra["udp"]?["unauthenticated_dropped"] == JSONValue(3))
    }

    @Test("untagged or wrongly tagged DATA in a session is dropped and counted, tagged DATA counted")
    func spoofedDataIsDropped() throws {
        let payload = Payload(count: 100, size: 32)
        let cell = try Self.authenticatedCell(payload)
        let tag = UDPDatagramTag(key: cell.dataKey!)
        let forged = UDPDatagramTag(key: try CellDataKey.random())
        let socket = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        defer { socket.close() }
        try socket.bind(SocketAddress(host: "127.0.0.1", port: 0))
        let session = UDPServerSession(socket: socket, cell: cell, stopper: CellCancellation())
        let peer = SocketAddress(host: "127.0.0.1", port: 9)
        func handle(_ d: [UInt8]) { d.withUnsafeBytes { session.handle($0, source: { peer }, arrival: 1, monotonicArrival: 1) } }
        func datagram(_ type: UDPMessageType, _ seq: UInt64, _ fields: [UInt64] = []) -> [UInt8] {
            UDPDatagramHeader(type: type, session: 7, sequence: seq, timestamp: 1).datagram(fields)
        }
        handle(datagram(.hello, 0, [100, 32]))  // untagged: no session
        #expect(session.receiverStats.expected == 0)
        handle(tag.tagged(datagram(.hello, 0, [100, 32])))
        #expect(session.receiverStats.expected == 100)
        for seq in 0..<50 { handle(datagram(.data, UInt64(seq)) + [UInt8](repeating: 1, count: 32)) }
        for seq in 50..<60 { handle(forged.tagged(datagram(.data, UInt64(seq)) + [UInt8](repeating: 1, count: 32))) }
        for seq in 60..<100 { handle(tag.tagged(datagram(.data, UInt64(seq)) + [UInt8](repeating: 1, count: 32))) }
        #expect(session.receiverStats.received == 40)
        #expect(session.receiverStats.receivedBytes == 40 * 32)
        #expect(session.unauthenticated == 1 + 50 + 10)
    }
}
