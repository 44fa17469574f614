/// A cell id and a repetition: what a journal is indexed by (`Cell.key`), printed `ID#REP`.
public struct CellKey: Sendable, Hashable, CustomStringConvertible {
    public var cellID: String
    public var repetition: Int
    public var description: String { "\(cellID)#\(repetition)" }
}
