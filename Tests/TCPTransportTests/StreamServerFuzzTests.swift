import PeerBenchCore
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TCPTransport

/// The stream plugins' server (tcp, and tls inside its TLS session: both run
/// `StreamWorkloadServer` on `StreamFrameReader`) against 100 000 mutated client
/// streams (issue 24, finding 1): each ends in GOODBYE or a `TransportError`, never a
/// trap, and what the server writes back stays bounded by what it was sent.
@Suite("Stream server: seeded fuzz of the frame decoder", .timeLimit(.minutes(3)))
struct StreamServerFuzzTests {
    /// The client's bytes, handed out in random chunk sizes; the server's replies counted.
    final class ReplayStream: ByteStream {
        private let input: [UInt8]
        private var offset = 0
        private var rng: WireFuzz
        private(set) var written = 0

        init(_ input: [UInt8], rng: WireFuzz) {
            self.input = input
            self.rng = rng
        }

        func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
            let n = min(buffer.count, input.count - offset, rng.int(1...4_096))
            guard n > 0 else { return 0 }
            input.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
            offset += n
            return n
        }

        func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
            written += bytes.count
            return true
        }

        func shutdown() {}
    }

    @Test("100 000 mutated streams: GOODBYE or a protocol error, never a trap")
    func fuzzStreamServer() {
        func frame(_ type: MessageType, _ body: [UInt8]) -> [UInt8] { UInt32(body.count).wireBytes + [type.rawValue] + body }
        let probe = frame(.probe, UInt32(3).wireBytes + UInt64(42).wireBytes)
        let clean: [[UInt8]] = [
            TCPHello.frame(), probe, probe + probe,
            frame(.data, [UInt8](repeating: 7, count: 100)), frame(.data, []),
            frame(.end, UInt64(2).wireBytes + UInt64(100).wireBytes + UInt64(1).wireBytes),
            frame(.goodbye, []),
        ]
        var rng = WireFuzz(seed: 0x57_2EA3)
        var outcomes: [String: Int] = [:]
        var cleanEnds = 0
        for i in 0..<WireFuzz.inputs {
            // HELLO, some frames, GOODBYE: a whole session; then mutated as one stream.
            let body = (0..<rng.int(0...5)).flatMap { _ in clean[rng.int(1...clean.count - 2)] }
            let session = TCPHello.frame() + body + frame(.goodbye, [])
            let (bytes, mutation) = rng.mutate(session, pool: clean)
            let stream = ReplayStream(bytes, rng: WireFuzz(seed: UInt64(i)))
            var outcome = "goodbye"
            do {
                try StreamWorkloadServer.serve("tcp", over: stream, greeting: TCPHello.greeting)
            } catch {
                outcome = "error"
            }
            if mutation == "none" {
                #expect(outcome == "goodbye", "input \(i): a clean session must end in GOODBYE")
                if outcome == "goodbye" { cleanEnds += 1 }
            }
            // Replies: the HELLO, an ECHO per PROBE, a REPORT per END, each bounded.
            #expect(
                stream.written <= TCPHello.frame().count + bytes.count * 2 + 8 * (StreamFraming.headerSize + StreamFraming.maxReportBody),
                "input \(i): \(stream.written) bytes written for \(bytes.count) read")
            outcomes["\(mutation) -> \(outcome)", default: 0] += 1
        }
        print("stream server fuzz: \(outcomes.sorted { $0.key < $1.key })")
        #expect(cleanEnds > 5_000)
        #expect(outcomes.keys.contains("edge -> error"))
    }
}
