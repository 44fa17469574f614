/// What a journal holds: its records in order, the complete lines that are not
/// records (with their line number and why), and a torn last line.
public struct JournalContents: Sendable {
    public var records: [Record] = []
    /// The line number (from 1) of each of `records`.
    var recordLines: [Int] = []
    public var foreign: [(line: Int, reason: String)] = []
    public var torn: String?
    public init() {}
}
