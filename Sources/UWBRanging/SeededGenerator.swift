/// xoshiro256** seeded through SplitMix64: a small, fast, reproducible generator.
///
/// The ranging model must replay the same trace for the same cell seed on every
/// machine and Swift version, so it never touches `SystemRandomNumberGenerator`
/// and never relies on the standard library's unspecified sampling algorithms
/// (`Double.random(in:using:)` may change between releases): every draw below is
/// computed from raw 64-bit outputs.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    /// A generator whose whole sequence is determined by `seed`.
    public init(seed: UInt64) {
        var sm = seed
        func splitMix(_ x: inout UInt64) -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (splitMix(&sm), splitMix(&sm), splitMix(&sm), splitMix(&sm))
    }

    /// An independent stream for one purpose (`"startup"`, `"channel"`): the same seed
    /// with a different label gives an unrelated sequence, so adding draws to one
    /// purpose never shifts another.
    public init(seed: UInt64, stream label: String) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over the label
        for b in label.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        self.init(seed: seed ^ h)
    }

    public mutating func next() -> UInt64 {
        let result = rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = rotl(s.3, 45)
        return result
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// Uniform in [0, 1), 53 random bits.
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [a, b).
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { uniform() < p }

    /// Standard normal by Box–Muller (one value per call; the second is discarded so
    /// each call consumes exactly two outputs, which keeps streams aligned).
    public mutating func gaussian() -> Double {
        let u1 = max(uniform(), 0x1.0p-53)
        let u2 = uniform()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * .pi * u2)
    }

    /// Random bytes (token identifiers and key material).
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
}

#if canImport(Glibc)
import Glibc
@inline(__always) func _log(_ x: Double) -> Double { Glibc.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Glibc.exp(x) }
@inline(__always) func _sin(_ x: Double) -> Double { Glibc.sin(x) }
#else
import Foundation
@inline(__always) func _log(_ x: Double) -> Double { Foundation.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Foundation.cos(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Foundation.exp(x) }
@inline(__always) func _sin(_ x: Double) -> Double { Foundation.sin(x) }
#endif
