import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import QUICTransport

/// The field study's RTT method over QUIC (`rttMethod` `pipelined`): every PING queued
/// on the control stream at once, through a loopback relay that delays and
/// rate-limits; and the receiver's span, asked for only from a server that offers it.
@Suite("QUIC pipelined probes", .serialized, .timeLimit(.minutes(3)))
struct QUICPipelinedProbeTests {
    static func run(
        _ method: RTTMethod, probes: Int, up: PathShape, down: PathShape, payload: Payload? = nil,
        passHello: Bool = true
    ) async throws -> TransportMeasurement {
        var cell = makeCell(payload: payload, probes: probes, seconds: 60)
        cell.rttMethod = method
        let plugin = try makePlugin()
        let server = try await plugin.startServer(cell)
        let relay = try DelayingUDPRelay(to: server.address, up: up, down: down)
        defer { relay.stop() }
        var clientCell = cell
        if passHello { clientCell.serverHello = server.hello }
        let (readyCell, address) = (clientCell, relay.address)
        let m = try await withTimeout(60) { try await plugin.runClient(readyCell, server: address) }
        try await server.finish()
        return m
    }

    @Test("40 probes over a 50 ms path finish in about one round trip, not forty")
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
        #expect(sendMs < firstEcho)
        #expect(lastEcho < 500, "40 probes took \(lastEcho) ms over a 50 ms round trip")
    }

    @Test("on a rate-limited path the pipelined mean RTT exceeds ping-pong's")
    func loadedPathRaisesTheMean() async throws {
        // 300 PINGs of 13 bytes fill about four packets; at 0.5 Mbit/s each takes ~20 ms.
        let path = PathShape(delayMs: 5, rateMbps: 0.5)
        let pingPong = try await Self.run(.pingPong, probes: 100, up: path, down: path)
        let pipelined = try await Self.run(.pipelined, probes: 300, up: path, down: path)
        #expect(pingPong.rttMethod == .pingPong)
        let ppMean = try #require(RTTSummary(nanoseconds: pingPong.rttNanos)).mean
        let plMean = try #require(RTTSummary(nanoseconds: pipelined.rttNanos)).mean
        #expect(ppMean >= 10 && ppMean < 40, "ping-pong mean \(ppMean) ms")
        #expect(plMean > 2 * ppMean, "pipelined mean \(plMean) ms vs ping-pong \(ppMean) ms")
    }

    @Test("receiver span through a 20 Mbit/s bottleneck; no span without the server's offer")
    func receiverSpan() async throws {
        let payload = Payload(count: 400, size: 4_096)
        let up = PathShape(delayMs: 2, rateMbps: 20), down = PathShape(delayMs: 2)
        let m = try await Self.run(.pingPong, probes: 2, up: up, down: down, payload: payload)
        #expect(m.status == .ok)
        let span = Double(try #require(m.receiverSpanNanos)) / 1e9
        // QUIC's own headers share the bottleneck, so the payload rate is a little below 20.
        let rate = Double(payload.count * payload.size) * 8 / span / 1e6
        #expect(rate > 17 && rate < 21, "receiver span rate \(rate) Mbit/s over \(span) s")
        // A client whose server did not offer the span (an older server) does not ask.
        let old = try await Self.run(.pingPong, probes: 2, up: up, down: down, payload: Payload(count: 20, size: 4_096), passHello: false)
        #expect(old.status == .ok)
        #expect(old.receiverSpanNanos == nil)
    }

    @Test("DONE and REPORT: the 24/32-byte forms of older peers and the longer ones round-trip")
    func framing() throws {
        for frame in [
            ControlFrame.done(DoneBody(messages: 1, bytes: 2, streams: 3)),
            .done(DoneBody(messages: 1, bytes: 2, streams: 3, flags: DoneBody.flagReceiverSpan)),
            .report(ReportBody(messages: 4, bytes: 5, streams: 6, receiveNanos: 7)),
            .report(ReportBody(messages: 4, bytes: 5, streams: 6, receiveNanos: 7, spanNanos: 8)),
        ] {
            var parser = FrameParser(acceptsSeries: true)
            var got: [ControlFrame] = []
            try FrameEncoder.encode(frame).withUnsafeBytes { try parser.feed($0, onData: { _, _ in }, onControl: { got.append($0) }) }
            #expect(got == [frame])
        }
        #expect(FrameEncoder.encode(.done(DoneBody(messages: 1, bytes: 2, streams: 3))).count == 5 + 24)
        #expect(FrameEncoder.encode(.report(ReportBody(messages: 4, bytes: 5, streams: 6, receiveNanos: 7))).count == 5 + 32)
    }
}
