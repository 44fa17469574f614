import PeerBenchSystem

/// 128 bits of some bytes, for telling apart what is held in memory and never
/// persisted: compare's and report's record keys (`RecordKey.Digest`) and the lines
/// merge has already written. Two inputs that differ share a digest with a chance of
/// about 2^-128 per pair (some 10^-28 among 200 000 lines, where a 64-bit hash has
/// about 10^-9, and merge would then drop a record as a duplicate of another).
public struct StableDigest: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    public func hash(into hasher: inout Hasher) { hasher.combine(low) }

    /// The digest of one run of bytes (a journal line).
    static func of(_ bytes: ArraySlice<UInt8>) -> StableDigest {
        var b = Builder()
        bytes.withUnsafeBytes { b.add($0) }
        return b.finish()
    }

    /// Two independent 64-bit multiply-rotate streams, eight bytes a step; each field
    /// ends with its length, so the fields ("ab", "c") and ("a", "bc") differ.
    struct Builder {
        private var a: UInt64 = 0x243F_6A88_85A3_08D3
        private var b: UInt64 = 0x1319_8A2E_0370_7344

        mutating func add(_ raw: UnsafeRawBufferPointer) {
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

        func finish() -> StableDigest {
            StableDigest(high: SplitMix64.mix(a ^ 0x5851_F42D_4C95_7F2D), low: SplitMix64.mix(b))
        }
    }
}

extension UInt64 {
    /// The bits rotated left by `k` (1...63): the step of `StableDigest.Builder`.
    @inline(__always) fileprivate func rotated(_ k: UInt64) -> UInt64 { self << k | self >> (64 - k) }
}
