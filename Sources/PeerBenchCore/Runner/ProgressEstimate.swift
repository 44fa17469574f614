/// The remaining time of a run, learned as it goes.
///
/// It starts from the plan's per-cell estimates (`RunPlan.estimates(of:)`: the
/// cost model that `validate` prints, or a resumed folder's measured times). Those
/// are right in proportion more often than in absolute terms (a slower or busier
/// machine), so the ETA scales the remaining cells' estimates by the ratio of
/// actual to estimated time of the cells already run.
public struct ProgressEstimate: Sendable {
    public private(set) var estimates: [Double]
    public private(set) var done = 0
    public private(set) var failures = 0
    private var actualDone = 0.0
    private var estimatedDone = 0.0

    /// `estimates`: expected seconds of each cell to run, in run order.
    public init(estimates: [Double]) { self.estimates = estimates }

    public var total: Int { estimates.count }

    /// Notes that the next cell took `seconds` and whether it ended ok.
    public mutating func finished(seconds: Double, ok: Bool) {
        guard done < estimates.count else { return }
        actualDone += seconds
        estimatedDone += estimates[done]
        done += 1
        if !ok { failures += 1 }
    }

    /// How much slower (> 1) or faster than estimated the run has been; nil before
    /// the first cell.
    public var ratio: Double? {
        guard done > 0, estimatedDone > 0 else { return nil }
        return actualDone / estimatedDone
    }

    /// Seconds left for the cells not yet finished; nil before the first cell ends.
    public var remainingSeconds: Double? {
        guard done > 0 else { return nil }
        let left = estimates[done...]
        if let ratio { return ratio * left.reduce(0, +) }
        return actualDone / Double(done) * Double(left.count)
    }
}
