public struct CellKey: Sendable, Hashable, CustomStringConvertible {
    public var cellID: String
    public var repetition: Int
    public init(cellID: String, repetition: Int) {
        self.cellID = cellID
        self.repetition = repetition
    }
    public var description: String { "\(cellID)#\(repetition)" }
}
