/// Which record of a journal is whose: the same cell and repetition of the same run.
public struct RecordKey: Sendable, Hashable {
    public var runID: String
    public var cellID: String
    public var repetition: Int
    public var cell: CellKey { CellKey(cellID: cellID, repetition: repetition) }
}
