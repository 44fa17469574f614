#if canImport(Glibc)
    import Glibc
#endif

/// One ranging round's result, as the emulated radio produces it.
public struct RangingSample: Sendable, Hashable {
    /// Measured distance, metres; nil when the round gave none (dropout, out of reach).
    public var distance: Float?
    /// Unit vector towards the peer in the phone's frame (x right, y up, −z out of
    /// the back); nil outside the field of view, for a watch, or on a dropout.
    public var direction: SIMD3<Float>?
    /// Whether the path was unobstructed this round (ground truth, for diagnostics and tests).
    public var lineOfSight: Bool
}
