/// Decides, cell by cell, whether an auto-repetition run still needs a cell: told every
/// record as it is written (and those of a resumed run first).
public protocol RepetitionJudge: Sendable {
    /// False for a cell whose scenario is already settled (it is skipped, not recorded).
    func needs(_ cell: Cell) -> Bool
    func add(_ record: Record)
    /// Every scenario so far, for the manifest.
    var report: AutoRepetitions.Report { get }
    /// The run's measurement floor, once measured (before the first cell): an interval
    /// no wider than what the harness can resolve counts as precise. Default: ignored.
    func measured(_ floor: MeasurementFloor?)
}

extension RepetitionJudge {
    public func measured(_ floor: MeasurementFloor?) {}
}
