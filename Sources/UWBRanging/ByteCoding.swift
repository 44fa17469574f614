/// Big-endian writing and bounds-checked reading for the module's wire formats
/// (discovery tokens, ATT-like PDUs, ranging frames). Reading never traps: every
/// read past the end returns nil, so a hostile or truncated input becomes an
/// error message instead of a crash.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(v >> 8))
        bytes.append(UInt8(v & 0xFF))
    }
    mutating func u32(_ v: UInt32) { for s in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
    mutating func u64(_ v: UInt64) { for s in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((v >> UInt64(s)) & 0xFF)) } }
    mutating func raw(_ b: some Sequence<UInt8>) { bytes.append(contentsOf: b) }
    /// Writes `b`, zero-padded or cut to exactly `count` bytes.
    mutating func fixed(_ b: [UInt8], _ count: Int) {
        bytes.append(contentsOf: b.prefix(count))
        if b.count < count { bytes.append(contentsOf: repeatElement(0, count: count - b.count)) }
    }
}

struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() -> UInt16? {
        guard let b = raw(2) else { return nil }
        return UInt16(b[0]) << 8 | UInt16(b[1])
    }

    mutating func u32() -> UInt32? {
        guard let b = raw(4) else { return nil }
        return b.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64() -> UInt64? {
        guard let b = raw(8) else { return nil }
        return b.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func raw(_ n: Int) -> [UInt8]? {
        guard n >= 0, remaining >= n else { return nil }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320, init and final XOR
/// 0xFFFFFFFF), the checksum zlib and Ethernet use: check value of "123456789" is
/// 0xCBF43926. Catches corruption of a token in transit or storage.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { i in
        var c = UInt32(i)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
