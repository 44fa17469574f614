public import Foundation
import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A session's discovery token, the emulation's `NIDiscoveryToken`: what the peer
/// needs to range with this session. Unique per session; exchange it over any
/// out-of-band channel (`MessageTokenChannel`, `GATTTokenChannel`, or your own)
/// as the bytes of `serialized()`, and rebuild it with `init(serialized:)`.
///
/// The binary form (version 1, 264 bytes) is specified byte by byte in
/// docs/protocol/uwb.md.
public struct DiscoveryToken: Sendable, Hashable, CustomStringConvertible {
    /// The token format this build writes and reads.
    static let currentVersion: UInt8 = 1
    /// Size of a version 1 token in bytes.
    public static let encodedSize = 264
    /// "NIDT": marks the bytes as a PeerBench discovery token.
    static let magic: [UInt8] = [0x4E, 0x49, 0x44, 0x54]
    static let attestationSize = 128

    /// Random, unique per session.
    public var sessionIdentifier: UUID
    public var deviceClass: DeviceClass
    public var chip: ChipGeneration
    public var capabilities: RangingCapabilities
    /// UWB channel the device listens on (5 or 9, the channels Apple's chips use).
    public var channel: UInt8
    /// Preamble code index (9–12 for the base pulse repetition frequency).
    var preambleCode: UInt8
    /// Where the device's emulated UWB radio (a UDP socket) receives ranging frames.
    /// In FiRa terms this is the device's UWB MAC address, which the out-of-band
    /// exchange must also convey.
    public var rangingEndpoint: SocketAddress
    /// The session's public key, 65 bytes in SEC1 uncompressed form (0x04 || X || Y).
    /// The emulation draws it at random and performs no key agreement.
    var publicKey: [UInt8]
    /// Seed of the scrambled timestamp sequence (STS) that secures ranging frames, 16 bytes.
    var stsSeed: [UInt8]
    /// Opaque device attestation, 128 bytes; a random stand-in that brings the token
    /// to the few hundred bytes Apple's serialised token has [A].
    var attestation: [UInt8]

    public init(
        sessionIdentifier: UUID, deviceClass: DeviceClass, chip: ChipGeneration, channel: UInt8 = 9,
        preambleCode: UInt8 = 10, rangingEndpoint: SocketAddress, publicKey: [UInt8], stsSeed: [UInt8],
        attestation: [UInt8]
    ) {
        self.sessionIdentifier = sessionIdentifier
        self.deviceClass = deviceClass
        self.chip = chip
        self.capabilities = .of(deviceClass, chip: chip)
        self.channel = channel
        self.preambleCode = preambleCode
        self.rangingEndpoint = rangingEndpoint
        self.publicKey = publicKey
        self.stsSeed = stsSeed
        self.attestation = attestation
    }

    /// A fresh token for a new session: identifier and key material from `generator`.
    public static func generate(
        deviceClass: DeviceClass, chip: ChipGeneration, rangingEndpoint: SocketAddress,
        using generator: inout SeededRandom
    ) -> DiscoveryToken {
        let id = generator.bytes(16)
        let uuid = UUID(
            uuid: (
                id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]
            ))
        return DiscoveryToken(
            sessionIdentifier: uuid, deviceClass: deviceClass, chip: chip,
            rangingEndpoint: rangingEndpoint, publicKey: [0x04] + generator.bytes(64),
            stsSeed: generator.bytes(16), attestation: generator.bytes(attestationSize))
    }

    public var description: String {
        "DiscoveryToken(\(sessionIdentifier.uuidString.prefix(8)), \(deviceClass.rawValue), \(chip.rawValue) chip, \(rangingEndpoint))"
    }

    /// The 16 bytes of the session identifier, as ranging frames carry it.
    var sessionIDBytes: [UInt8] {
        withUnsafeBytes(of: sessionIdentifier.uuid) { Array($0) }
    }

    /// The version 1 binary form (264 bytes, big-endian, CRC-32 at the end).
    public func serialized() -> [UInt8] {
        var w = ByteWriter(capacity: Self.encodedSize)
        w.raw(Self.magic)
        w.u8(Self.currentVersion)
        w.u8(0)  // reserved
        w.u16(UInt16(Self.encodedSize))
        w.raw(sessionIDBytes)
        w.u8(deviceClass.wireValue)
        w.u8(chip.wireValue)
        w.u16(capabilities.rawValue)
        w.u8(channel)
        w.u8(preambleCode)
        w.u16(0)  // reserved
        let (family, address) = Self.addressBytes(rangingEndpoint)
        w.u8(family)
        w.fixed(address, 16)
        w.u16(rangingEndpoint.port)
        w.fixed(publicKey, 65)
        w.fixed(stsSeed, 16)
        w.fixed(attestation, Self.attestationSize)
        w.u32(CRC32.checksum(w.bytes))
        return w.bytes
    }

    /// Numeric address bytes: 4 for IPv4 (family 4), 16 for IPv6 (family 6).
    static func addressBytes(_ a: SocketAddress) -> (UInt8, [UInt8]) {
        if a.isIPv6 {
            var in6 = in6_addr()
            guard inet_pton(AF_INET6, a.host, &in6) == 1 else { return (0, []) }
            return (6, withUnsafeBytes(of: in6) { Array($0) })
        }
        var in4 = in_addr()
        guard inet_pton(AF_INET, a.host, &in4) == 1 else { return (0, []) }
        return (4, withUnsafeBytes(of: in4) { Array($0) })
    }
}

extension DiscoveryToken: Codable {
    /// Encodes as the binary form (a `Data` value: base64 in JSON), so a token can
    /// sit in any Codable message an app already exchanges.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(Data(serialized()))
    }

    public init(from decoder: any Decoder) throws {
        let data = try decoder.singleValueContainer().decode(Data.self)
        try self.init(serialized: data)
    }
}
