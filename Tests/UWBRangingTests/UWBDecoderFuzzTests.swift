import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import UWBRanging

#if canImport(Glibc)
    import Glibc
#endif

/// The uwb plugin's decoders against 100 000 mutated inputs each (issue 24, finding 1):
/// ranging frames, discovery tokens, and the GATT server and message channel reading a
/// client's PDUs over a real socket pair. Each input ends in a value, nil or an error:
/// never a trap, never more held than the protocol's limits.
@Suite("UWB decoders: seeded fuzz", .serialized, .timeLimit(.minutes(5)))
struct UWBDecoderFuzzTests {
    static let token = DiscoveryTokenTests.token().serialized()

    @Test("ranging frames: well-formed frames decode to what was encoded, the rest to nil")
    func fuzzRangingFrames() {
        let a = [UInt8](repeating: 1, count: 16), b = [UInt8](repeating: 2, count: 16)
        var poll = RangingFrame(kind: .poll, round: 7, sender: a, receiver: b)
        poll.timestamp = 99
        poll.auxiliary = 6
        poll.reportMillimetres = 1_500
        var response = RangingFrame(kind: .response, round: 7, sender: b, receiver: a)
        response.timestamp = 99
        let clean = [poll, response, RangingFrame(kind: .end, round: 0, sender: a, receiver: b)].map { $0.encoded() }
        var rng = WireFuzz(seed: 0x0BB_F2A3)
        var decoded = 0
        for i in 0..<WireFuzz.inputs {
            let (bytes, mutation) = rng.mutate(clean[rng.int(0...clean.count - 1)], pool: clean)
            let frame = RangingFrame(decoding: bytes)
            if mutation == "none" { #expect(frame?.encoded() == bytes, "input \(i): a clean frame must decode") }
            if let frame {
                decoded += 1
                #expect(frame.encoded() == bytes, "input \(i): what decodes re-encodes to the same bytes")
            }
        }
        #expect(decoded > WireFuzz.inputs / 10)
    }

    @Test("discovery tokens: a value or invalidConfiguration, never a trap")
    func fuzzTokens() {
        var rng = WireFuzz(seed: 0x70_CE25)
        var accepted = 0, rejected = 0
        for i in 0..<WireFuzz.inputs {
            var (bytes, _) = rng.mutate(Self.token, pool: [Self.token])
            // Half the time with a CRC that matches, so the field checks behind it run.
            if i % 2 == 0, bytes.count == DiscoveryToken.encodedSize {
                let crc = CRC32.checksum(bytes[0..<(bytes.count - 4)])
                bytes.replaceSubrange((bytes.count - 4)..., with: crc.wireBytes)
            }
            do {
                _ = try DiscoveryToken(serialized: bytes)
                accepted += 1
            } catch {
                #expect(error.code == .invalidConfiguration)
                rejected += 1
            }
        }
        #expect(accepted > 1_000 && rejected > 10_000)
    }

    /// A connected AF_UNIX stream pair: the client's bytes are written and its side shut
    /// for writing before the server reads, so the server meets the end of the stream.
    static func pair() throws -> (client: Socket, server: Socket) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw SystemError("socketpair", errno: errno) }
        return (Socket(adopting: fds[0]), Socket(adopting: fds[1]))
    }

    @Test("GATT server and message channel: PDUs from a client, mutated, over a socket pair")
    func fuzzTokenChannelServers() throws {
        func pdu(_ bytes: [UInt8]) -> [UInt8] { UInt16(bytes.count).wireBytes + bytes }
        let first = Array(Self.token.prefix(182)), rest = Array(Self.token.dropFirst(182))
        let gatt: [[UInt8]] = [
            pdu([0x02] + UInt16(185).wireBytes),
            pdu([0x16, 0x00, 0x03, 0x00, 0x00] + first), pdu([0x16, 0x00, 0x03] + UInt16(182).wireBytes + rest),
            pdu([0x18, 0x01]), pdu([0x0A, 0x00, 0x05]), pdu([0x0C, 0x00, 0x05] + UInt16(182).wireBytes),
        ]
        let message = MessageTokenChannel.frame(Self.token)
        var rng = WireFuzz(seed: 0x6A77)
        var outcomes: [String: Int] = [:]
        for i in 0..<WireFuzz.inputs {
            let useGATT = i % 2 == 0
            let session = useGATT ? gatt.flatMap { $0 } : message
            let (bytes, mutation) = rng.mutate(session, pool: useGATT ? gatt : [message])
            let (client, server) = try Self.pair()
            try client.write(bytes, "the fuzz input")
            Glibc.shutdown(client.fd, Int32(SHUT_WR))
            let deadline = MonotonicClock.now() + 2_000_000_000
            var outcome = "ok"
            do {
                let exchange =
                    useGATT
                    ? try GATTTokenChannel().serve(Self.token, over: server, deadline: deadline)
                    : try MessageTokenChannel().serve(Self.token, over: server, deadline: deadline)
                #expect(exchange.peerTokenBytes.count <= max(GATTTokenChannel.maxAttributeLength, MessageTokenChannel.maxBody))
            } catch {
                outcome = "error"
            }
            if mutation == "none" { #expect(outcome == "ok", "input \(i): a clean exchange must succeed") }
            outcomes["\(useGATT ? "gatt" : "message") \(mutation) -> \(outcome)", default: 0] += 1
            client.close()
            server.close()
        }
        print("uwb token channel fuzz: \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes.keys.contains("gatt edge -> error") && outcomes.keys.contains("message edge -> error"))
    }
}
