import Foundation
import PeerBenchPlugin
import TCPTransport
import Testing

@testable import LinkEmulation

/// The field study app's send loop for transfers (`rttMethod` `send-loop`): one send per
/// message, so Linux's Nagle, not the plugin's batching, decides how small messages
/// coalesce. Over a real delayed path (namespaces, the emulator, 50 ms each way), the
/// first of 100 small messages leaves alone and the rest wait for its acknowledgement,
/// which is what made the phones' 100 x 128 B transfers span tens of milliseconds.
/// The span alone cannot tell Nagle from the congestion window (100 segments sent one
/// by one also wait a round trip behind the initial window of 10), so the client's
/// TCP_INFO `segs_out` says whether the stack coalesced the 100 sends.
/// The span is taken where the server reads: a server thread that wakes late reads
/// the first message together with what came after it. The long path makes the gap the
/// kernel decides (a round trip, 100 ms) far wider than any such wake-up delay, and the
/// bounds sit half a round trip from either outcome.
@Suite(.serialized, .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
struct SendLoopTransferTests {
    /// The receiver span (ms) of 100 x 128 B over tcp (Nagle on unless `noDelay`), by
    /// `method`, and the segments the client sent on the connection (TCP_INFO `segs_out`).
    static func span(_ method: RTTMethod, noDelay: Bool = false, on testbed: EmulatedTestbed) async throws -> (ms: Double, segments: Double) {
        let endpoints = try testbed.configure(EmulatorParameters(delayNanos: 50_000_000, rateBitsPerSecond: 100e6, mtu: 1_500), seed: 1)
        var cell = CellContext.loopback(payload: Payload(count: 100, size: 128), rttProbes: 1, timeoutSeconds: 30, environment: "lab")
        cell.client = endpoints.client
        cell.server = endpoints.server
        cell.rttMethod = method
        let plugin = TCPPlugin(TCPOptions(noDelay: noDelay))
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok, "\(method.name): \(m.error ?? "")")
        let segments = try #require(m.extra["tcp"]?["segs_out"]?.doubleValue)
        return (Double(try #require(m.receiverSpanNanos)) / 1e6, segments)
    }

    @Test("send-loop: the second message waits a round trip (100 ms) for the first one's ACK; batched writes arrive together")
    func nagleHoldsTheLoop() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let loop = try await Self.span(.sendLoop, on: testbed)
        // The path's round trip (the emulator holds every packet 50 ms), less however
        // late the server read the first message: half a round trip leaves room for that.
        #expect(loop.ms >= 50, "send-loop span \(loop.ms) ms")
        // One send of all 100 messages: ten segments leave together (initial window 10)
        // and arrive within a millisecond; half a round trip leaves room for a late reader.
        let batched = try await Self.span(.pipelined, on: testbed)
        #expect(batched.ms < 50, "batched span \(batched.ms) ms")
        // Nagle coalesced the 100 sends: one lone first segment more than the single
        // write (about 15 segments in all); with TCP_NODELAY the first ten messages
        // fill the initial window one segment each (7 more than the write on 2026-12-07),
        // which the same bound tells apart.
        #expect(loop.segments <= batched.segments + 3, "send-loop \(loop.segments) segments, batched \(batched.segments)")
        let unheld = try await Self.span(.sendLoop, noDelay: true, on: testbed)
        #expect(unheld.segments > batched.segments + 3, "TCP_NODELAY \(unheld.segments) segments, batched \(batched.segments)")
    }
}
