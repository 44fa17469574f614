import PeerBenchTestbed

/// A run about to measure and run its cells.
public struct RunStart: Sendable {
    public var plan: RunPlan
    /// Cells this session runs (at most, with auto repetitions).
    public var pending: Int
    /// Cells earlier sessions recorded (on resume), not run again.
    public var alreadyRecorded: Int
    /// The testbed's link.
    public var link: LinkMode
    public var isolation: Isolation
    public var folder: String
}
