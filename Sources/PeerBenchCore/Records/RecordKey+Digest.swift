extension RecordKey {
    /// 128 bits of a record's run, cell and repetition: how compare and report find the
    /// record a line (or a samples line) is about without keeping three strings per
    /// record. Two keys that differ share a digest with a chance of about 2^-128 per
    /// pair (some 10^-28 among 200 000 records), where the 64-bit hash report used had
    /// about 10^-9. Made from the strings' UTF-8 bytes, so a journal line's raw bytes
    /// (`RecordLine`) and a decoded key give the same digest. Never persisted.
    public struct Digest: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        public func hash(into hasher: inout Hasher) { hasher.combine(low) }
    }

    public var digest: Digest {
        var run = runID, cell = cellID
        return run.withUTF8 { r in cell.withUTF8 { c in Self.digest(runID: r, cellID: c, repetition: repetition) } }
    }

    /// The digest of a key given as its strings' UTF-8 bytes.
    public static func digest(runID: UnsafeBufferPointer<UInt8>, cellID: UnsafeBufferPointer<UInt8>, repetition: Int) -> Digest {
        var h = DigestHasher()
        h.add(runID)
        h.add(cellID)
        h.mix(UInt64(bitPattern: Int64(repetition)))
        return h.finish()
    }
}

/// Two independent 64-bit multiply-rotate streams over the key's fields, eight bytes a
/// step; each field ends with its length, so ("ab", "c") and ("a", "bc") differ.
private struct DigestHasher {
    private var a: UInt64 = 0x243F_6A88_85A3_08D3
    private var b: UInt64 = 0x1319_8A2E_0370_7344

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        while i + 8 <= raw.count {
            mix(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        for k in stride(from: raw.count - 1, through: i, by: -1) { tail = tail << 8 | UInt64(raw[k]) }
        mix(tail)
        mix(UInt64(raw.count))
    }

    mutating func mix(_ w: UInt64) {
        a = ((a ^ (w &* 0x87C3_7B91_1142_53D5)).rotated(31)) &* 0x4CF5_AD43_2745_937F
        b = ((b ^ (w &* 0x9E37_79B9_7F4A_7C15)).rotated(27)) &* 0xC2B2_AE3D_27D4_EB4F
    }

    func finish() -> RecordKey.Digest {
        RecordKey.Digest(high: StableHash.mix(a ^ 0x5851_F42D_4C95_7F2D), low: StableHash.mix(b))
    }
}
