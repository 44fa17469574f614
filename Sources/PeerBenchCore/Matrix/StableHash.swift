/// Deterministic hashing for cell ids, seeds and matrix identity. Swift's `Hasher`
/// is randomly seeded per process, so it cannot be used for anything persisted.
public enum StableHash {
    public static func fnv1a64(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    public static func hex(_ text: String) -> String {
        let s = String(fnv1a64(text), radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// SplitMix64 finaliser: spreads a combined value into a well-mixed seed.
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
