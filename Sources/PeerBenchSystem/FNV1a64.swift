/// The 64-bit FNV-1a hash, the one in PeerBench: cell ids and the matrix hash
/// (`StableHash`), a cell's seed, and `SeededRandom`'s named streams. Unlike Swift's
/// `Hasher`, which is seeded per process, it gives the same value everywhere, so what
/// it makes can be persisted; it must never change.
public enum FNV1a64 {
    /// The hash of `text`'s UTF-8 bytes.
    public static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }
}
