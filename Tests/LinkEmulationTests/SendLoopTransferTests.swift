import Foundation
import PeerBenchPlugin
import TCPTransport
import Testing

@testable import LinkEmulation

/// The field study app's send loop for transfers (`rttMethod` `send-loop`): one send per
/// message, so Linux's Nagle, not the plugin's batching, decides how small messages
/// coalesce. Over a real delayed path (namespaces, the emulator, 10 ms each way), the
/// first of 100 small messages leaves alone and the rest wait for its acknowledgement,
/// which is what made the phones' 100 x 128 B transfers span tens of milliseconds.
@Suite(.serialized, .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
struct SendLoopTransferTests {
    /// The receiver span (ms) of 100 x 128 B over tcp with Nagle on, by `method`.
    static func span(_ method: RTTMethod, on testbed: EmulatedTestbed) async throws -> Double {
        let endpoints = try testbed.configure(EmulatorParameters(delayNanos: 10_000_000, rateBitsPerSecond: 100e6, mtu: 1_500), seed: 1)
        var cell = CellContext.loopback(payload: Payload(count: 100, size: 128), rttProbes: 1, timeoutSeconds: 30, environment: "lab")
        cell.client = endpoints.client
        cell.server = endpoints.server
        cell.rttMethod = method
        let plugin = TCPPlugin(TCPOptions(noDelay: false))
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok, "\(method.name): \(m.error ?? "")")
        return Double(try #require(m.receiverSpanNanos)) / 1e6
    }

    @Test("send-loop: the second message waits a round trip (20 ms) for the first one's ACK; batched writes arrive together")
    func nagleHoldsTheLoop() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let loop = try await Self.span(.sendLoop, on: testbed)
        // Never less than the path's round trip: the emulator holds every packet 10 ms.
        #expect(loop >= 19.5, "send-loop span \(loop) ms")
        // One send of all 100 messages: nine segments leave together (initial window 10).
        let batched = try await Self.span(.pipelined, on: testbed)
        #expect(batched < 10, "batched span \(batched) ms")
    }
}
