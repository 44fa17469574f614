import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import UDPTransport

/// The field study's RTT method over UDP (`rttMethod` `pipelined`): one datagram per
/// probe, all sent before any echo is awaited, through a loopback relay that delays
/// and rate-limits; lost probes cost one bounded straggler wait, not one each.
@Suite("UDP pipelined probes", .serialized, .timeLimit(.minutes(3)))
struct UDPPipelinedProbeTests {
    static func run(
        _ method: RTTMethod, probes: Int, up: PathShape, down: PathShape, options: UDPOptions = UDPOptions(),
        payload: Payload? = nil
    ) async throws -> TransportMeasurement {
        var cell = makeCell(payload: payload, probes: probes, seconds: 60)
        cell.rttMethod = method
        let plugin = UDPPlugin(options)
        let server = try await plugin.startServer(cell)
        let relay = try DelayingUDPRelay(to: server.address, up: up, down: down)
        defer { relay.stop() }
        let m = try await plugin.runClient(cell, server: relay.address)
        try await server.finish()
        return m
    }

    @Test("40 probes over a 50 ms path: all sent before the first echo, done in about one round trip")
    func probesOverlap() async throws {
        let path = PathShape(delayMs: 25)
        let m = try await Self.run(.pipelined, probes: 40, up: path, down: path)
        #expect(m.rttMethod == .pipelined)
        #expect(m.probesSent == 40)
        #expect(m.rttNanos.count == 40)
        #expect(m.rttNanos.allSatisfy { $0 >= 50_000_000 }, "\(m.rttNanos)")
        let t = try #require(m.extra[PipelinedProbeTimes.extraKey])
        let sendMs = try #require(t["send_ms"]?.doubleValue), firstEcho = try #require(t["first_echo_ms"]?.doubleValue)
        let lastEcho = try #require(t["last_echo_ms"]?.doubleValue)
        #expect(sendMs < firstEcho, "last probe sent at \(sendMs) ms, first echo at \(firstEcho) ms")
        #expect(lastEcho < 500, "40 probes took \(lastEcho) ms over a 50 ms round trip")
    }

    @Test("on a rate-limited path the pipelined mean RTT exceeds ping-pong's")
    func loadedPathRaisesTheMean() async throws {
        // 0.2 Mbit/s: a 24-byte probe takes ~1 ms, so 100 probes queue for up to ~96 ms.
        let path = PathShape(delayMs: 5, rateMbps: 0.2)
        let pingPong = try await Self.run(.pingPong, probes: 100, up: path, down: path)
        let pipelined = try await Self.run(.pipelined, probes: 100, up: path, down: path)
        #expect(pingPong.rttMethod == .pingPong)
        #expect(pipelined.rttNanos.count == 100)
        let ppMean = try #require(RTTSummary(nanoseconds: pingPong.rttNanos)).mean
        let plMean = try #require(RTTSummary(nanoseconds: pipelined.rttNanos)).mean
        #expect(ppMean >= 10 && ppMean < 30, "ping-pong mean \(ppMean) ms")
        #expect(plMean > 2 * ppMean, "pipelined mean \(plMean) ms vs ping-pong \(ppMean) ms")
    }

    @Test("lost probes are counted lost after one bounded wait, not a timeout each")
    func lostProbes() async throws {
        var cell = makeCell(payload: nil, probes: 50, seconds: 30)
        cell.rttMethod = .pipelined
        let plugin = UDPPlugin()
        let server = try await plugin.startServer(cell)
        // Every fifth probe never reaches the server.
        let relay = try LossyRelay(server: server.address, drop: { type, seq, _ in type == 0x03 && seq % 5 == 0 })
        defer { relay.close() }
        let probeCell = cell
        let (m, nanos) = try await timed { try await plugin.runClient(probeCell, server: relay.address) }
        try await server.finish()
        #expect(m.probesSent == 50)
        #expect(m.rttNanos.count == 40)
        // One straggler wait (1 s at this RTT), not ten 1 s probe timeouts.
        #expect(nanos > 1_000_000_000 && nanos < 3_000_000_000, "\(Double(nanos) / 1e9) s")
    }

    @Test("receiver span of a paced sender: (count - 1) x size at the pace")
    func receiverSpanOfPacedSender() async throws {
        let payload = Payload(count: 200, size: 1_000)
        var cell = makeCell(payload: payload, probes: 2, seconds: 30)
        cell.rttMethod = .pipelined
        let plugin = UDPPlugin(UDPOptions(rateMbps: 20))
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.delivery?.receivedMessages == 200)
        let span = Double(try #require(m.receiverSpanNanos)) / 1e9
        let expected = Double(payload.count - 1) * Double(payload.size) * 8 / 20e6  // 79.6 ms
        // The pacer never sends datagram i before start + i x interval (MessageSchedule's
        // absolute schedule), so only a late first datagram shortens the span, and a
        // loaded host's late wake-ups lengthen it: 85.3 ms with the timing suites five
        // at a time. An unpaced sender's span is about a millisecond, a span counted
        // from the sender or over the handshake and probes far from this.
        #expect(span > expected * 0.9 && span < expected * 1.5, "span \(span) s, expected \(expected) s")
    }

    private func timed<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> (T, UInt64) {
        let start = MonotonicClock.now()
        let value = try await body()
        return (value, MonotonicClock.elapsed(since: start))
    }
}
