import PeerBenchCore
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TCPTransport

/// The workload frames (docs/protocol/tcp.md, "Workloads") against hostile clients: a
/// seeded fuzz of REQUEST, FRAME and FRAME_END sessions (each ends in GOODBYE or a
/// `TransportError`, never a trap), and the bounds a PULL and a FRAME_PULL must respect.
@Suite("Stream server: workload frames under hostile input", .timeLimit(.minutes(3)))
struct StreamWorkloadFuzzTests {
    func frame(_ type: MessageType, _ body: [UInt8]) -> [UInt8] { UInt32(body.count).wireBytes + [type.rawValue] + body }

    /// Serves `bytes` as one client's stream; "goodbye", or the error's text.
    func serve(_ bytes: [UInt8], seed: UInt64 = 1) -> (outcome: String, written: Int) {
        let stream = StreamServerFuzzTests.ReplayStream(bytes, rng: WireFuzz(seed: seed))
        do {
            try StreamWorkloadServer.serve("tcp", over: stream, greeting: TCPHello.greeting)
            return ("goodbye", stream.written)
        } catch {
            return ("\(error)", stream.written)
        }
    }

    @Test("20 000 mutated request and frame sessions: GOODBYE or a protocol error, never a trap")
    func fuzzWorkloadFrames() {
        let data = frame(.data, [UInt8](repeating: 7, count: 100))
        let clean: [[UInt8]] = [
            TCPHello.frame(),
            data + frame(.request, UInt32(0).wireBytes + UInt32(50).wireBytes),
            data + frame(.frame, UInt32(1).wireBytes),
            frame(.frameEnd, UInt32(2).wireBytes + UInt64(20_000_000).wireBytes + UInt64(100_000_000).wireBytes),
            frame(.goodbye, []),
        ]
        var rng = WireFuzz(seed: 0x26_F4A3)
        var outcomes: [String: Int] = [:]
        for i in 0..<20_000 {
            let body = (0..<rng.int(0...6)).flatMap { _ in clean[rng.int(1...clean.count - 2)] }
            let (bytes, mutation) = rng.mutate(TCPHello.frame() + body + frame(.goodbye, []), pool: clean)
            let (outcome, _) = serve(bytes, seed: UInt64(i))
            if mutation == "none" { #expect(outcome == "goodbye", "input \(i): \(outcome)") }
            outcomes["\(mutation) -> \(outcome == "goodbye" ? "goodbye" : "error")", default: 0] += 1
        }
        print("workload frame fuzz: \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes["none -> goodbye", default: 0] > 1_000)
        #expect(outcomes.keys.contains("edge -> error"))
    }

    @Test(
        "numbers beyond the limits are protocol errors naming them, before anything is sent",
        arguments: [
            (MessageType.pull, UInt64(100_000_001).wireBytes + UInt64(10).wireBytes, "PULL of 100000001 messages"),
            (.pull, UInt64(10).wireBytes + UInt64(64 << 20 + 1).wireBytes, "PULL of 67108865-byte messages"),
            (.framePull, UInt32(100_001).wireBytes + UInt32(10).wireBytes + UInt64(20_000_000).wireBytes, "100001 frames"),
            (.framePull, UInt32(10).wireBytes + UInt32(10).wireBytes + UInt64.max.wireBytes, "a period of"),
            (.frameEnd, UInt32(10).wireBytes + UInt64.max.wireBytes + UInt64(1).wireBytes, "a period of"),
            (.request, UInt32(0).wireBytes + UInt32(16 << 20 + 1).wireBytes, "a response of 16777217 bytes"),
            (.frame, UInt32.max.wireBytes, "frame 4294967295"),
        ])
    func beyondTheLimits(type: MessageType, body: [UInt8], words: String) {
        let (outcome, written) = serve(TCPHello.frame() + frame(type, body) + frame(.goodbye, []))
        #expect(outcome.contains(words), "\(outcome)")
        #expect(written == TCPHello.frame().count, "only the HELLO was answered")
    }
}
