#if canImport(Glibc)
    import Glibc
#endif

/// The one deterministic pseudo-random generator of PeerBench (xoshiro256**, seeded
/// through SplitMix64): the emulator's drops, delays and channel, the UWB ranging model
/// and its tokens, and a shuffled cell order.
///
/// A cell's seed must give the same trace on every machine and Swift version, so
/// nothing here touches `SystemRandomNumberGenerator` or the standard library's
/// unspecified sampling algorithms (`Double.random(in:using:)`, `shuffle(using:)` may
/// change between releases): every draw is computed from raw 64-bit outputs. Each random
/// decision stream (loss, jitter, channel; `"uwb.startup"`) gets its own generator,
/// derived from the seed and a stream number or name, so adding draws to one stream
/// never shifts another.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A generator for `seed`, independent per `stream`.
    public init(seed: UInt64, stream: UInt64 = 0) {
        var sm = SplitMix64(state: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = sm.next()
        s1 = sm.next()
        s2 = sm.next()
        s3 = sm.next()
    }

    /// A generator for `seed`, independent per named `stream` (`"uwb.channel"`): the
    /// name's FNV-1a hash is mixed into the seed.
    public init(seed: UInt64, stream label: String) {
        self.init(seed: seed ^ FNV1a64.hash(label))
    }

    @inline(__always)
    public mutating func next() -> UInt64 {
        let m = s1 &* 5
        let result = (m << 7 | m >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    @inline(__always)
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Standard normal (Box-Muller; both uniforms always drawn, so the stream
    /// advances by a fixed amount per call).
    public mutating func normal() -> Double {
        let u1 = max(unit(), 0x1.0p-60)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Exponential with the given mean.
    public mutating func exponential(mean: Double) -> Double {
        -mean * log(max(1 - unit(), 0x1.0p-60))
    }

    /// Uniform in [a, b).
    public mutating func unit(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Random bytes (token identifiers and key material), eight per output, low byte first.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var v = next()
            for _ in 0..<8 where out.count < count {
                out.append(UInt8(truncatingIfNeeded: v))
                v >>= 8
            }
        }
        return out
    }

    /// Fisher-Yates with this generator.
    public mutating func shuffle<T>(_ a: inout [T]) {
        guard a.count > 1 else { return }
        for i in stride(from: a.count - 1, to: 0, by: -1) {
            let j = Int(next() % UInt64(i + 1))
            a.swapAt(i, j)
        }
    }
}
