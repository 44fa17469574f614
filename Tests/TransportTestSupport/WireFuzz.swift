import PeerBenchSystem

/// A seeded fuzzer for the plugins' data-plane decoders (issue 24, finding 1): the
/// pattern of RemoteLinkTests' ControlFuzzTests, for binary wire formats. A failing
/// input is found again from the seed and its index.
public struct WireFuzz: RandomNumberGenerator {
    /// Inputs each decoder gets.
    public static let inputs = 100_000

    private var source: SplitMix64
    /// The fuzzer for `seed`: the same inputs on every run and machine.
    public init(seed: UInt64) { source = SplitMix64(state: seed) }

    /// SplitMix64's next output.
    public mutating func next() -> UInt64 { source.next() }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }

    /// Numbers at the edges of every width: where unchecked arithmetic overflows and
    /// unchecked allocations explode (2^33 made the udp server reserve 1 GiB).
    public static let edges: [UInt64] = [
        0, 1, 2, 0x7F, 0xFF, 0x7FFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, 1 << 32, 1 << 33,
        1 << 40, 0x7FFF_FFFF_FFFF_FFFF, 1 << 63, .max, .max - 62,
    ]

    /// One of: unchanged, bit flips, truncation, extension, a field overwritten with an
    /// edge value (u8/u16/u32/u64, big-endian), a splice with another input, or noise.
    /// Returns the bytes and the mutation's name.
    public mutating func mutate(_ clean: [UInt8], pool: [[UInt8]]) -> ([UInt8], String) {
        var b = clean
        switch int(0...9) {
        case 0:
            return (b, "none")
        case 1, 2:
            guard !b.isEmpty else { return (b, "none") }
            for _ in 0..<int(1...4) { b[int(0...b.count - 1)] ^= 1 << UInt8(int(0...7)) }
            return (b, "bitflip")
        case 3:
            return (Array(b.prefix(int(0...max(0, b.count - 1)))), "truncate")
        case 4:
            return (b + bytes(int(1...64)), "extend")
        case 5, 6, 7:
            let width = [1, 2, 4, 8][int(0...3)]
            guard b.count >= width else { return (b, "none") }
            let value = Self.edges[int(0...Self.edges.count - 1)]
            let at = int(0...b.count - width)
            for k in 0..<width { b[at + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - k))) }
            return (b, "edge")
        case 8:
            let other = pool[int(0...pool.count - 1)]
            return (Array(b.prefix(int(0...b.count))) + Array(other.suffix(int(0...other.count))), "splice")
        default:
            return (bytes(int(0...128)), "noise")
        }
    }
}

extension FixedWidthInteger {
    /// The value's big-endian bytes.
    public var wireBytes: [UInt8] { withUnsafeBytes(of: bigEndian) { Array($0) } }
}
