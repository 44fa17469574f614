#if canImport(Glibc)
import Glibc
#endif

/// A deterministic pseudo-random generator (xoshiro256**, seeded through SplitMix64).
///
/// The emulator must give the same drops and delays for the same cell seed, so it
/// never touches the system generator. Each random decision stream (loss, jitter,
/// channel) gets its own generator derived from the seed and a stream number, so
/// adding draws to one stream never shifts another.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A generator for `seed`, independent per `stream`.
    public init(seed: UInt64, stream: UInt64 = 0) {
        var sm = seed ^ (stream &* 0xD1B5_4A32_D192_ED03)
        s0 = Self.splitMix(&sm)
        s1 = Self.splitMix(&sm)
        s2 = Self.splitMix(&sm)
        s3 = Self.splitMix(&sm)
    }

    private static func splitMix(_ x: inout UInt64) -> UInt64 {
        x &+= 0x9E37_79B9_7F4A_7C15
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
}
