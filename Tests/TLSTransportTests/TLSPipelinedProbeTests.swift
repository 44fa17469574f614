import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchWorkloads
import TLSTransport
import Testing
import TransportTestSupport

/// Pipelined probes through TLS: the PROBEs are written on the session while a second
/// thread reads the ECHOs from it (GnuTLS allows one sender and one receiver thread).
@Suite("TLS pipelined probes", .timeLimit(.minutes(2)))
struct TLSPipelinedProbeTests {
    @Test("40 probes over a 50 ms path: all written before the first echo, done in about one round trip")
    func probesOverlap() async throws {
        var cell = makeCell(payload: Payload(count: 50, size: 1_000), probes: 40, seconds: 60)
        cell.rttMethod = .pipelined
        let plugin = TLSPlugin(TLSOptions(noDelay: false))
        let server = try await plugin.startServer(cell)
        let relay = try DelayingTCPRelay(to: server.address, up: PathShape(delayMs: 25), down: PathShape(delayMs: 25))
        defer { relay.stop() }
        let m = try await plugin.runClient(cell, server: relay.address)
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.rttMethod == .pipelined)
        #expect(m.rttNanos.count == 40 && m.rttNanos.allSatisfy { $0 >= 50_000_000 })
        let t = try #require(m.extra[PipelinedProbeTimes.extraKey])
        let sendMs = try #require(t["send_ms"]?.doubleValue), firstEcho = try #require(t["first_echo_ms"]?.doubleValue)
        #expect(sendMs < firstEcho, "last probe written at \(sendMs) ms, first echo at \(firstEcho) ms")
        #expect(try #require(t["last_echo_ms"]?.doubleValue) < 500)
        // The bulk phase after the probes still works, and the server reported its span.
        #expect(m.delivery?.receivedMessages == 50)
        #expect((m.receiverSpanNanos ?? 0) > 0)
    }
}
