import Foundation
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

extension DiscoveryToken {
    /// Rebuilds a token from its binary form. Anything that is not a well-formed
    /// version 1 token — empty, truncated, foreign, another version, corrupted, or
    /// with a field out of its range — throws `NIError` with code
    /// `.invalidConfiguration` and a message naming the fault. Never traps.
    public init(serialized input: some Collection<UInt8>) throws(NIError) {
        let bytes = Array(input)
        let invalid = Self.invalid
        var r = try Self.checkedHeader(bytes)

        let id = r.raw(16)!
        let deviceByte = r.u8()!
        guard let deviceClass = DeviceClass(wireValue: deviceByte) else { throw invalid("unknown device class \(deviceByte) (1 = phone, 2 = watch)") }
        let chipByte = r.u8()!
        guard let chip = ChipGeneration(wireValue: chipByte) else { throw invalid("unknown chip generation \(chipByte) (1 or 2)") }
        let caps = RangingCapabilities(rawValue: r.u16()!)
        guard RangingCapabilities.known.isSuperset(of: caps), caps.contains(.distance) else {
            throw invalid("capabilities 0x\(String(caps.rawValue, radix: 16)) are not valid (bit 0 must be set, bits 3–15 clear)")
        }
        let channel = r.u8()!
        guard channel == 5 || channel == 9 else { throw invalid("UWB channel \(channel); must be 5 or 9") }
        let preamble = r.u8()!
        guard (9...12).contains(preamble) else { throw invalid("preamble code \(preamble); must be 9 to 12") }
        guard r.u16()! == 0 else { throw invalid("reserved bytes 30–31 must be 0 in version 1") }
        let family = r.u8()!
        let address = r.raw(16)!
        let port = r.u16()!
        guard family == 4 || family == 6 else { throw invalid("ranging endpoint address family \(family); must be 4 or 6") }
        guard let host = Self.host(family: family, address) else {
            throw invalid("ranging endpoint address is not a valid IPv\(family) address (IPv4 needs 12 trailing zero bytes)")
        }
        guard port != 0 else { throw invalid("ranging endpoint port is 0") }
        let key = r.raw(65)!
        guard key[0] == 0x04 else {
            throw invalid("public key must start with 0x04 (SEC1 uncompressed point), starts with 0x\(String(key[0], radix: 16))")
        }
        let sts = r.raw(16)!
        let attestation = r.raw(Self.attestationSize)!

        self.init(
            sessionIdentifier: UUID(
                uuid: (
                    id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                    id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]
                )),
            deviceClass: deviceClass, chip: chip, channel: channel, preambleCode: preamble,
            rangingEndpoint: SocketAddress(host: host, port: port), publicKey: key, stsSeed: sts, attestation: attestation)
        self.capabilities = caps
    }

    /// A token's fault as the error `init(serialized:)` throws.
    private static func invalid(_ why: String) -> NIError { NIError(.invalidConfiguration, "invalid discovery token: \(why)") }

    /// Checks what frames the fields (magic, version, length, checksum, reserved
    /// byte); returns a reader at the first field.
    private static func checkedHeader(_ bytes: [UInt8]) throws(NIError) -> ByteReader {
        guard !bytes.isEmpty else { throw invalid("it is empty (0 bytes)") }
        // Magic first: a foreign blob should be called foreign, even when it is short.
        let head = Array(bytes.prefix(4))
        guard head == Array(Self.magic.prefix(head.count)) else {
            let hex = head.map { String($0, radix: 16).leftPadded(2) }.joined()
            throw invalid("not a PeerBench discovery token (starts with 0x\(hex), expected \"NIDT\"); was it made by another program?")
        }
        guard bytes.count >= 8 else { throw invalid("truncated: \(bytes.count) bytes, shorter than the 8-byte header") }
        var r = ByteReader(bytes)
        _ = r.raw(4)
        let version = r.u8()!
        guard version == Self.currentVersion else {
            throw invalid("unsupported version \(version); this build reads version \(Self.currentVersion)")
        }
        let reserved = r.u8()!
        let declared = Int(r.u16()!)
        guard declared == Self.encodedSize else {
            throw invalid("header declares \(declared) bytes; a version 1 token has \(Self.encodedSize)")
        }
        guard bytes.count >= declared else { throw invalid("truncated: \(bytes.count) of \(declared) bytes") }
        guard bytes.count == declared else { throw invalid("\(bytes.count - declared) unexpected bytes after the token's \(declared)") }
        let storedCRC =
            UInt32(bytes[declared - 4]) << 24 | UInt32(bytes[declared - 3]) << 16
            | UInt32(bytes[declared - 2]) << 8 | UInt32(bytes[declared - 1])
        let computed = CRC32.checksum(bytes[0..<(declared - 4)])
        guard storedCRC == computed else {
            throw invalid("corrupted: checksum 0x\(String(storedCRC, radix: 16)) does not match the content (0x\(String(computed, radix: 16)))")
        }
        guard reserved == 0 else { throw invalid("reserved byte 5 is \(reserved), must be 0 in version 1") }
        return r
    }

    private static func host(family: UInt8, _ address: [UInt8]) -> String? {
        switch family {
        case 4:
            guard address[4...].allSatisfy({ $0 == 0 }) else { return nil }
            return address[0..<4].map(String.init).joined(separator: ".")
        case 6:
            var a = in6_addr()
            withUnsafeMutableBytes(of: &a) { $0.copyBytes(from: address) }
            var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &a, &buf, socklen_t(buf.count)) != nil else { return nil }
            return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        default:
            return nil
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
