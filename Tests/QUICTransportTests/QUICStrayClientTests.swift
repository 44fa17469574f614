import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing

/// Issue 16 §1: a connection that is not the cell's client, even one that completes
/// a full handshake with our ALPN, must neither end nor spoil the cell; a client
/// of another cell is refused with an error that says so.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct QUICStrayClientTests {
    /// aioquic strays (certificate not verified) before the cell's client connects and
    /// throughout its probes and bulk phase: one that closes after each handshake,
    /// one that holds its connection open. The cell ends ok with every byte counted.
    @Test(.enabled(if: aioquicAvailable, "needs python3 with aioquic (pip install aioquic)"))
    func strayHandshakesDoNotEndTheCell() async throws {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: Payload(count: 20_000, size: 16384), rttProbes: 20, timeoutSeconds: 60)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let port = "\(server.address.port)"
        let closer = try QUICInteropTests.Peer(["stray", "--port", port, "--repeat", "400", "--interval", "0.05"])
        defer { closer.kill() }
        let holder = try QUICInteropTests.Peer(["stray", "--port", port, "--hold", "60"])
        defer { holder.kill() }
        // At cell start: both strays are through their handshakes before our client begins.
        let first = try await BlockingThread.run(name: "stray") { closer.line() }
        #expect(first?.hasPrefix("HANDSHAKE 1 ") == true, "stray said \(first ?? "nothing")")
        let held = try await BlockingThread.run(name: "stray") { holder.line() }
        #expect(held?.hasPrefix("HANDSHAKE 1 ") == true, "holding stray said \(held ?? "nothing")")

        let start = MonotonicClock.now()
        let m = try await withTimeout(60) { try await plugin.runClient(cell, server: server.address) }
        let end = MonotonicClock.now()
        try await withTimeout(10) { try await server.finish() }
        closer.kill()
        #expect(m.status == .ok)
        #expect(m.delivery == Delivery(sentMessages: 20_000, receivedMessages: 20_000, sentBytes: 327_680_000, receivedBytes: 327_680_000))
        #expect(m.rttNanos.count == 20)

        // The strays really overlapped the cell: handshakes completed while our client ran.
        let lines = try await BlockingThread.run(name: "stray") { () -> [String] in
            var out: [String] = []
            while let l = closer.line() { out.append(l) }
            return out
        }
        let during = lines.compactMap { l -> UInt64? in
            let parts = l.split(separator: " ")
            return parts.count == 3 && parts[0] == "HANDSHAKE" ? UInt64(parts[2]) : nil
        }.filter { $0 > start && $0 < end }
        print("stray test: client \(Double(end - start) / 1e9) s, bulk \(Double(m.bulkNanos ?? 0) / 1e9) s, stray handshakes during \(during.count)")
        #expect(during.count >= 2, "stray handshakes while the client ran: \(during.count) (bulk took \(Double(m.bulkNanos ?? 0) / 1e9) s)")
    }

    /// A client that presents another cell's token is refused at once, with an error
    /// naming why; the server goes on and serves the cell's own client afterwards.
    @Test func anotherCellsClientIsRefusedByName() async throws {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: Payload(count: 10, size: 1000), rttProbes: 3, seed: 1)
        let server = try await plugin.startServer(cell)
        defer { server.stop() }
        let other = CellContext.loopback(payload: Payload(count: 10, size: 1000), rttProbes: 3, seed: 2)
        let error = await #expect(throws: (any Error).self) {
            _ = try await withTimeout(10) { try await plugin.runClient(other, server: server.address) }
        }
        let text = "\(try #require(error))"
        #expect(text.contains("the server refused this client as not the cell's own"), "\(text)")
        #expect(text.contains("another cell's token"), "\(text)")

        let m = try await withTimeout(20) { try await plugin.runClient(cell, server: server.address) }
        #expect(m.delivery == Delivery(sentMessages: 10, receivedMessages: 10, sentBytes: 10_000, receivedBytes: 10_000))
        try await withTimeout(10) { try await server.finish() }
    }
}
