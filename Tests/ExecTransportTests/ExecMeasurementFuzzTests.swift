import PeerBenchPlugin
import Testing
import TransportTestSupport

@testable import ExecTransport

/// The exec plugin decodes one thing that came over the link: the measurement its
/// client command prints (what that command heard from its server). 100 000 seeded
/// measurements with numbers at every edge (issue 24, finding 1): a measurement or a
/// `Problem`, never a trap (`connect_ms` 1e300 trapped in UInt64(_:)).
@Suite("Exec measurement parser: seeded fuzz", .timeLimit(.minutes(3)))
struct ExecMeasurementFuzzTests {
    static let numbers = [
        "0", "1", "-1", "0.5", "1e300", "-1e300", "1e308", "9007199254740993", "18446744073709551616",
        "86400000", "86400001", "2e-320", "\"7\"", "null", "true", "[]", "{}",
    ]

    @Test("connect_ms beyond a day is refused, naming the key")
    func connectBound() throws {
        #expect(throws: ExecMeasurementParser.Problem.self) { try ExecMeasurementParser.parse(#"{"connect_ms": 1e300}"#) }
        do {
            _ = try ExecMeasurementParser.parse(#"{"connect_ms": 1e300}"#)
        } catch {
            #expect(error.message.contains("connect_ms"))
        }
        #expect(try ExecMeasurementParser.parse(#"{"connect_ms": 1.5}"#).connectNanos == 1_500_000)
    }

    @Test("100 000 measurements with edge numbers: a value or a Problem")
    func fuzzParser() {
        var rng = WireFuzz(seed: 0xE7EC)
        func num() -> String { Self.numbers[rng.int(0...Self.numbers.count - 1)] }
        var parsed = 0, refused = 0
        for i in 0..<WireFuzz.inputs {
            var fields: [String] = []
            if rng.int(0...1) == 1 { fields.append("\"connect_ms\": \(num())") }
            if rng.int(0...1) == 1 { fields.append("\"rtt_ns\": [\((0..<rng.int(0...3)).map { _ in num() }.joined(separator: ","))]") }
            if rng.int(0...1) == 1 { fields.append("\"probes_sent\": \(num())") }
            if rng.int(0...1) == 1 { fields.append("\"bulk_ns\": \(num())") }
            if rng.int(0...1) == 1 { fields.append("\"rfc3550_jitter_ms\": \(num())") }
            if rng.int(0...1) == 1 {
                let keys = ["sent_messages", "received_messages", "sent_bytes", "received_bytes", "reordered", "duplicated"]
                fields.append("\"delivery\": {\(keys.map { "\"\($0)\": \(num())" }.joined(separator: ","))}")
            }
            var text = "{\(fields.joined(separator: ","))}"
            if i % 10 == 0 {
                // Byte-level damage too: the text as a client's broken output might be.
                let (bytes, _) = rng.mutate(Array(text.utf8), pool: [Array(text.utf8)])
                text = String(decoding: bytes, as: UTF8.self)
            }
            do {
                _ = try ExecMeasurementParser.parse(text)
                parsed += 1
            } catch {
                #expect(!error.message.isEmpty)
                refused += 1
            }
        }
        #expect(parsed > 1_000 && refused > 10_000)
    }
}
