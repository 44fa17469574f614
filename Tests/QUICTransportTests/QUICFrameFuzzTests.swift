import PeerBenchPlugin
import Testing
import TransportTestSupport

@testable import QUICTransport

/// The quic plugin's stream frame parser against 100 000 mutated streams each, as the
/// server (which refuses SERIES) and as the client (issue 24, finding 1): frames or a
/// `FramingError`, never a trap; DATA never counts more bytes than arrived.
@Suite("QUIC frame parser: seeded fuzz", .serialized, .timeLimit(.minutes(3)))
struct QUICFrameFuzzTests {
    @Test("100 000 mutated streams per side: frames or a FramingError, never a trap", arguments: [false, true])
    func fuzzFrameParser(asClient: Bool) {
        let token = CellToken(cellID: "fuzz", repetition: 0, seed: 1)
        var clean: [[UInt8]] = [
            FrameEncoder.encode(.hello(token)), FrameEncoder.encode(.resume(token)), FrameEncoder.encode(.ping(5)),
            FrameEncoder.encode(.done(DoneBody(messages: 3, bytes: 300, streams: 1, flags: 1))),
            FrameEncoder.header(.data, length: 100) + [UInt8](repeating: 1, count: 100), FrameEncoder.header(.data, length: 0),
            // The workload streams' frames (section 4c).
            FrameEncoder.encode(.request(2_000)), FrameEncoder.encode(.frame(7)), FrameEncoder.encode(.pull(count: 400, size: 4_096)),
            FrameEncoder.encode(.framePull(FramePullBody(frames: 40, frameBytes: 160, periodNanos: 5_000_000))),
        ]
        if asClient {
            clean += [
                FrameEncoder.encode(.pong(5)), FrameEncoder.encode(.resumed(ResumedBody(messages: 3, bytes: 300))),
                FrameEncoder.encode(.report(ReportBody(messages: 3, bytes: 300, streams: 1, receiveNanos: 9, spanNanos: 8))),
                FrameEncoder.encode(.series(BulkSeries(intervalNanos: 100_000_000, bytes: [1, 2, 3]))),
                FrameEncoder.encode(.frameArrivals([0, 5_000_000, 10_000_000])), FrameEncoder.encode(.frameArrivals([])),
            ]
        }
        var rng = WireFuzz(seed: asClient ? 0xC11E_27 : 0x5E2_BE2)
        var outcomes: [String: Int] = [:]
        for i in 0..<WireFuzz.inputs {
            let stream = (0..<rng.int(1...4)).flatMap { _ in clean[rng.int(0...clean.count - 1)] }
            let (bytes, mutation) = rng.mutate(stream, pool: clean)
            var parser = FrameParser(acceptsSeries: asClient)
            var dataBytes = 0
            var outcome = "frames"
            do {
                var offset = 0
                while offset < bytes.count {
                    let n = min(rng.int(1...1_500), bytes.count - offset)
                    try bytes[offset..<offset + n].withUnsafeBytes { chunk in
                        try parser.feed(
                            chunk, onData: { n, _ in dataBytes += n },
                            onControl: { frame in
                                if case .series(let s) = frame { #expect((s?.bytes.count ?? 0) <= SeriesBody.maxIntervals) }
                                if case .frameArrivals(let a) = frame { #expect(asClient && a.count <= WorkloadSpec.Limits.frames) }
                            })
                    }
                    offset += n
                }
                if !parser.atFrameBoundary { outcome = "cut" }
            } catch {
                outcome = "FramingError"
            }
            #expect(dataBytes <= bytes.count, "input \(i): \(dataBytes) DATA bytes counted from \(bytes.count)")
            if mutation == "none" { #expect(outcome == "frames", "input \(i): a clean stream must parse") }
            outcomes["\(mutation) -> \(outcome)", default: 0] += 1
        }
        print("quic frame fuzz (\(asClient ? "client" : "server")): \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes.keys.contains("edge -> FramingError"))
        if !asClient {
            // The server refuses FRAME_ARRIVALS at its header, whatever its length says.
            var parser = FrameParser()
            let arrivals = FrameEncoder.encode(.frameArrivals([1, 2]))
            #expect(throws: FramingError.self) { try arrivals.withUnsafeBytes { try parser.feed($0, onData: { _, _ in }, onControl: { _ in }) } }
        }
    }
}
