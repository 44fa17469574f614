import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing

/// The server must shrug off datagrams that are not (valid) QUIC and still serve
/// the real client afterwards.
@Suite(.timeLimit(.minutes(2))) struct QUICGarbageTests {
    /// A genuine client Initial, captured by pointing our client at a plain UDP socket.
    func captureInitial() async throws -> [UInt8] {
        let sink = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try sink.bind(SocketAddress(host: "127.0.0.1", port: 0))
        try sink.setReceiveTimeout(nanoseconds: 2_000_000_000)
        let address = try sink.localAddress()
        let plugin = try makePlugin(["handshakeTimeoutSeconds": 0.2])
        let cell = CellContext.loopback(payload: nil, rttProbes: 0)
        await #expect(throws: (any Error).self) { _ = try await plugin.runClient(cell, server: address) }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let n = try buffer.withUnsafeMutableBytes { try sink.receive($0) } ?? 0
        try #require(n >= 1200, "a client Initial is padded to at least 1200 bytes")
        return Array(buffer.prefix(n))
    }

    @Test func serverSurvivesGarbageAndServesTheRealClient() async throws {
        let initial = try await captureInitial()
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: Payload(count: 100, size: 1000), rttProbes: 5)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }

        var rng = SystemRandomNumberGenerator()
        var attackers: [Socket] = []
        for _ in 0..<3 { attackers.append(try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))) }
        func send(_ bytes: [UInt8], from s: Socket) throws {
            _ = try bytes.withUnsafeBytes { try s.send($0, to: server.address) }
        }
        // Random bytes of every size class.
        for i in 0..<300 {
            let size = [1, 5, 20, 60, 1200, 1350, Int.random(in: 1...1500, using: &rng)][i % 7]
            try send((0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }, from: attackers[i % 3])
        }
        // Random bytes dressed as a long-header Initial (version 1), so header parsing passes.
        for i in 0..<100 {
            var p = (0..<1200).map { _ in UInt8.random(in: 0...255, using: &rng) }
            p[0] = 0xc0
            p[1] = 0
            p[2] = 0
            p[3] = 0
            p[4] = 1
            p[5] = 8
            try send(p, from: attackers[i % 3])
        }
        // Truncated copies of a real Initial, and the Initial with bits flipped.
        for cut in [1, 6, 7, 20, 50, 100, 600, initial.count - 1] { try send(Array(initial.prefix(cut)), from: attackers[0]) }
        var flipped = initial
        flipped[initial.count / 2] ^= 0xff
        try send(flipped, from: attackers[1])
        // The real Initial replayed, from several addresses.
        for i in 0..<30 { try send(initial, from: attackers[i % 3]) }
        try await Task.sleep(nanoseconds: 200_000_000)

        let m = try await withTimeout(20) { try await plugin.runClient(cell, server: server.address) }
        #expect(m.delivery == Delivery(sentMessages: 100, receivedMessages: 100, sentBytes: 100_000, receivedBytes: 100_000))
        #expect(m.rttNanos.count == 5)
        try await withTimeout(10) { try await server.finish() }
    }
}
