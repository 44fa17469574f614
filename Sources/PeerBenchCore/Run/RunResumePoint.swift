import PeerBenchTestbed

/// Where a run can be continued from: what `peerbench run MATRIX --resume FOLDER` needs.
public struct RunResumePoint: Sendable, Equatable {
    /// The matrix file as the run resolved it.
    public var matrixFile: String
    /// The run folder.
    public var folder: String
    public var link: LinkMode
}
