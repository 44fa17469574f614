import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// The decoder survives a fuzzer (issue 12): seeded random and mutated messages, fed in
/// random chunk sizes, must each end in messages or a `ControlProtocolError` — never a
/// trap, never a hang, never more than one frame buffered.
@Suite(.timeLimit(.minutes(2))) struct ControlFuzzTests {
    static let inputs = 100_000

    @Test func decoderSurvivesRandomAndMutatedStreams() throws {
        var rng = FuzzRandom(seed: 0x5EED_C0DE)
        var outcomes: [String: Int] = [:]
        var cleanRoundTrips = 0
        // A pool of random messages, made once: the time goes to mutating and decoding.
        let pool = try (0..<1_000).map { _ in
            let m = rng.message()
            return (message: m, frame: try ControlFraming.encode(m))
        }
        let frames = pool.map(\.frame)
        let started = ContinuousClock.now
        for i in 0..<Self.inputs {
            let picks = (0..<rng.int(1...3)).map { _ in pool[rng.int(0...pool.count - 1)] }
            let messages = picks.map(\.message)
            let clean = picks.flatMap(\.frame)
            let (bytes, mutation) = rng.mutate(clean, pool: frames)
            var decoder = ControlFrameDecoder()
            var decoded: [ControlMessage] = []
            var offset = 0
            var failure: ControlProtocolError?
            while offset < bytes.count && failure == nil {
                let n = min(rng.chunkSize(), bytes.count - offset)
                do { decoded += try decoder.feed(bytes[offset..<offset + n]) } catch { failure = error }
                #expect(decoder.bufferedByteCount <= ControlFraming.maxFrameSize)
                offset += n
            }
            if failure == nil {
                do { try decoder.finish() } catch { failure = error }
            }
            if mutation == "none" {
                #expect(failure == nil && decoded == messages, "input \(i): a clean stream must decode to what was encoded")
                cleanRoundTrips += 1
            }
            let outcome = failure.map { Mirror(reflecting: $0).children.first?.label ?? "\($0)" } ?? "decoded"
            outcomes["\(mutation) -> \(outcome)", default: 0] += 1
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "control fuzz: \(Self.inputs) inputs in \(String(format: "%.2f", seconds)) s "
                + "(\(String(format: "%.1f", seconds / Double(Self.inputs) * 1e6)) µs each)")
        for (k, v) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(k): \(v)") }
        #expect(cleanRoundTrips > 5_000)
        // Every mutation kind was exercised and reached the decoder's error paths.
        for kind in ["badMagic", "unknownType", "frameTooLarge", "truncatedFrame", "malformedBody", "invalidUTF8", "invalidJSON"] {
            #expect(outcomes.keys.contains { $0.hasSuffix("-> " + kind) }, "no input ended in \(kind)")
        }
        #expect(seconds < 60, "the decoder took \(seconds) s for \(Self.inputs) inputs")
    }
}

/// The fuzzer's reproducible source, SplitMix64 (a failing input is found again by its index).
struct FuzzRandom: RandomNumberGenerator {
    private var source: SplitMix64
    init(seed: UInt64) { source = SplitMix64(state: seed) }

    mutating func next() -> UInt64 { source.next() }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }

    /// Mostly small reads, sometimes a large one: the shapes TLS records and recv give.
    mutating func chunkSize() -> Int {
        switch int(0...9) {
        case 0...5: int(1...16)
        case 6...8: int(17...512)
        default: int(513...20_000)
        }
    }

    mutating func text() -> String {
        let alphabet = Array("abcXYZ019 -_.:/\"\\\n\té€𝄞")
        return String((0..<int(0...12)).map { _ in alphabet[int(0...alphabet.count - 1)] })
    }

    mutating func json(depth: Int = 0) -> JSONValue {
        switch int(0...(depth > 2 ? 3 : 5)) {
        case 0: return .null
        case 1: return .bool(int(0...1) == 1)
        case 2: return .number(Double(int(-1_000_000...1_000_000)) / Double(int(1...1000)))
        case 3: return .string(text())
        case 4: return .array((0..<int(0...4)).map { _ in json(depth: depth + 1) })
        default: return object(depth: depth + 1)
        }
    }

    mutating func object(depth: Int = 0) -> JSONValue {
        var o = JSONObject()
        for _ in 0..<int(0...5) { o[text()] = json(depth: depth) }
        return .object(o)
    }

    mutating func message() -> ControlMessage {
        switch int(0...8) {
        case 0:
            return .hello(
                .init(
                    protocolVersions: (0..<int(1...3)).map { _ in UInt16(truncatingIfNeeded: next()) },
                    softwareVersion: text(), plugins: (0..<int(0...6)).map { _ in text() }))
        case 1: return .cellRequest(object())
        case 2: return .serverReady(object())
        case 3: return .serverResult(object())
        case 4: return .ping(next())
        case 5: return .pong(next())
        case 6: return .error(code: UInt16(truncatingIfNeeded: next()), message: text())
        case 7: return .busy
        default: return .bye
        }
    }

    /// One of: unchanged, bit flips, truncation, a lying length, a splice of two streams,
    /// a flipped type byte, random bytes behind a valid header, or pure noise.
    mutating func mutate(_ clean: [UInt8], pool: [[UInt8]]) -> ([UInt8], String) {
        var b = clean
        switch int(0...9) {
        case 0, 1:
            return (b, "none")
        case 2:
            for _ in 0..<int(1...4) {
                let i = int(0...b.count - 1)
                b[i] ^= 1 << UInt8(int(0...7))
            }
            return (b, "bitflip")
        case 3:
            return (Array(b.prefix(int(0...b.count - 1))), "truncate")
        case 4:
            // The first frame's length field, replaced: shorter, longer, or absurd.
            let lie: UInt32 =
                switch int(0...2) {
                case 0: UInt32(int(0...64))
                case 1: UInt32(int(0...ControlFraming.maxBodySize))
                default: UInt32(truncatingIfNeeded: next())
                }
            b.replaceSubrange(4..<8, with: lie.bigEndianBytes)
            return (b, "length-lie")
        case 5:
            let other = pool[int(0...pool.count - 1)]
            let cut = int(0...b.count)
            return (Array(b[..<cut]) + other[int(0...other.count)...] + b[cut...], "splice")
        case 6:
            b[3] = byte()
            return (b, "type")
        case 7:
            let type = UInt8(int(1...9))
            let body = bytes(int(0...300))
            return ([0x50, 0x42, 0x01, type] + UInt32(body.count).bigEndianBytes + body, "random-body")
        case 8:
            // A JSON body with one byte made invalid UTF-8 or syntax.
            let type = UInt8(int(2...4))
            var body = Array(JSONValue.object(JSONObject(["k": .string(text()), "n": .number(Double(int(0...99)))])).compactText.utf8)
            body[int(0...body.count - 1)] = [0xFF, 0xC3, 0x7B, 0x22, 0x5D][int(0...4)]
            return ([0x50, 0x42, 0x01, type] + UInt32(body.count).bigEndianBytes + body, "json")
        default:
            return (bytes(int(1...400)), "noise")
        }
    }
}
