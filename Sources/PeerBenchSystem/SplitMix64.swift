/// SplitMix64 (Steele, Lea and Flood 2014), the one in PeerBench: it seeds
/// `SeededRandom`, mixes a cell's seed from the matrix seed, the cell id and the
/// repetition, and drives the test fuzzers, whose failing inputs are found again from
/// their seed. Its outputs are persisted (cell seeds), so they must never change.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state: the next output is the mix of `state` plus the
    /// golden-ratio increment.
    public var state: UInt64

    /// A generator whose first output is `SplitMix64.mix(state)`.
    public init(state: UInt64) { self.state = state }

    /// The next output: the state advances by the golden-ratio increment and is mixed.
    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.finalize(state)
    }

    /// One step from `x` on its own: spreads a combined value into a well-mixed one
    /// (the first output of `SplitMix64(state: x)`).
    @inline(__always)
    public static func mix(_ x: UInt64) -> UInt64 { finalize(x &+ 0x9E37_79B9_7F4A_7C15) }

    @inline(__always)
    private static func finalize(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
