import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import UWBRanging

@Suite(.timeLimit(.minutes(3))) struct DiscoveryTokenTests {
    static func token(
        seed: UInt64 = 7, kind: DeviceClass = .phone, chip: ChipGeneration = .second,
        endpoint: SocketAddress = SocketAddress(host: "10.0.0.2", port: 40001)
    ) -> DiscoveryToken {
        var g = SeededRandom(seed: seed)
        return DiscoveryToken.generate(deviceClass: kind, chip: chip, rangingEndpoint: endpoint, using: &g)
    }

    /// Decodes `bytes`, expecting `.invalidConfiguration` with `fragment` in its message.
    func expectRejected(_ bytes: [UInt8], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try DiscoveryToken(serialized: bytes)
            Issue.record("accepted a bad token (\(fragment))", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .invalidConfiguration, sourceLocation: sourceLocation)
            #expect(error.code.rawValue == -5888, sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "message: \(error.message)", sourceLocation: sourceLocation)
        }
    }

    /// Re-seals bytes with a correct CRC, so a test reaches the field checks behind it.
    func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var b = Array(bytes.prefix(bytes.count - 4))
        let c = CRC32.checksum(b)
        b += [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)]
        return b
    }

    @Test func roundTripsEveryField() throws {
        for (kind, chip, endpoint) in [
            (DeviceClass.phone, ChipGeneration.second, SocketAddress(host: "10.0.0.2", port: 40001)),
            (.watch, .first, SocketAddress(host: "fd00::1:2", port: 65535)),
        ] {
            let t = Self.token(kind: kind, chip: chip, endpoint: endpoint)
            let bytes = t.serialized()
            #expect(bytes.count == DiscoveryToken.encodedSize)
            #expect(bytes.count == 264)
            let back = try DiscoveryToken(serialized: bytes)
            #expect(back == t)
            #expect(back.rangingEndpoint == endpoint)
            #expect(back.deviceClass == kind)
            #expect(back.chip == chip)
            #expect(back.capabilities.contains(.direction) == (kind == .phone))
            #expect(back.serialized() == bytes)
        }
    }

    @Test func codableCarriesTheBinaryForm() throws {
        let t = Self.token()
        let json = try JSONEncoder().encode([t])
        let back = try JSONDecoder().decode([DiscoveryToken].self, from: json)
        #expect(back == [t])
    }

    @Test func tokensAreUniquePerSessionAndReproduciblePerSeed() {
        #expect(Self.token(seed: 1) == Self.token(seed: 1))
        #expect(Self.token(seed: 1).sessionIdentifier != Self.token(seed: 2).sessionIdentifier)
    }

    @Test func crcMatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func rejectsEmptyAndTruncated() {
        let good = Self.token().serialized()
        expectRejected([], "empty")
        expectRejected(Array(good.prefix(5)), "truncated")
        expectRejected(Array(good.prefix(100)), "truncated: 100 of 264")
        expectRejected(Array(good.dropLast()), "truncated: 263 of 264")
    }

    @Test func rejectsForeignData() {
        expectRejected(Array("{\"token\": \"hello\"}".utf8), "not a PeerBench discovery token")
        expectRejected([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30] + [UInt8](repeating: 0, count: 256), "not a PeerBench discovery token")
    }

    @Test func rejectsOtherVersions() {
        var b = Self.token().serialized()
        b[4] = 2
        expectRejected(b, "unsupported version 2")
        b[4] = 0
        expectRejected(b, "unsupported version 0")
    }

    @Test func rejectsCorruptionAndTrailingBytes() {
        var b = Self.token().serialized()
        b[100] ^= 0x01
        expectRejected(b, "corrupted")
        expectRejected(Self.token().serialized() + [0], "1 unexpected bytes")
        var lengthLies = Self.token().serialized()
        lengthLies[7] = 0xFF
        expectRejected(lengthLies, "header declares")
    }

    @Test func rejectsOutOfRangeFields() {
        let good = Self.token().serialized()
        func with(_ offset: Int, _ value: UInt8) -> [UInt8] {
            var b = good
            b[offset] = value
            return resealed(b)
        }
        expectRejected(with(5, 1), "reserved byte 5")
        expectRejected(with(24, 3), "unknown device class 3")
        expectRejected(with(25, 0), "unknown chip generation 0")
        expectRejected(with(27, 0x10), "capabilities")
        expectRejected(with(28, 7), "UWB channel 7")
        expectRejected(with(29, 1), "preamble code 1")
        expectRejected(with(32, 5), "address family 5")
        expectRejected(with(40, 1), "not a valid IPv4 address")
        expectRejected(with(51, 0x02), "public key must start with 0x04")
        var zeroPort = good
        zeroPort[49] = 0
        zeroPort[50] = 0
        expectRejected(resealed(zeroPort), "port is 0")
    }

    @Test func randomGarbageNeverCrashes() {
        var g = SeededRandom(seed: 99)
        let good = Self.token().serialized()
        for i in 0..<2000 {
            var b: [UInt8]
            switch i % 3 {
            case 0: b = g.bytes(Int(g.next() % 400))
            case 1: b = Array(good.prefix(Int(g.next() % 264)))
            default:
                b = good
                for _ in 0..<(1 + Int(g.next() % 4)) { b[Int(g.next() % 264)] = UInt8(truncatingIfNeeded: g.next()) }
                if b == good { continue }
            }
            #expect(throws: NIError.self) { _ = try DiscoveryToken(serialized: b) }
        }
    }
}
