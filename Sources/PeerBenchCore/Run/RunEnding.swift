/// A run that got to its end, or was stopped and wrapped up cleanly.
public struct RunEnding: Sendable {
    /// This session's cells (an interrupted, skipped or settled cell is counted here).
    public var session: RunSummary
    /// The last record of every cell of the plan, all sessions together.
    public var whole: RunSummary
    /// Cells of the plan (this shard's), recorded or not.
    var cellsInPlan: Int
    public var journalPath: String
    /// Auto repetitions: how each scenario ended.
    public var autoRepetitions: AutoRepetitions.Report?

    /// Cells of the plan with no record yet.
    public var cellsLeft: Int { cellsInPlan - whole.total }
}
