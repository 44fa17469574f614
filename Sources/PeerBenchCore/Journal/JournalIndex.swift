import PeerBenchPlugin

/// The last record of each cell, the one definition of "the last record wins" that the
/// runner (resume, summaries), merge and compare share.
///
/// A journal may hold several records of one key (a `--retry-failed` rerun keeps the
/// earlier attempt as history); the last record is the cell's current outcome. Records
/// of different runs are different keys (`RecordKey` includes the run id).
public struct JournalIndex: Sendable {
    /// The last record of every key, in order of first appearance.
    public private(set) var last: [(key: RecordKey, record: Record)] = []
    private var position: [RecordKey: Int] = [:]
    private var positionByCell: [CellKey: Int] = [:]

    public init(records: some Sequence<Record>) {
        for r in records { add(r) }
    }

    /// Files `record`, replacing an earlier record of its key.
    public mutating func add(_ record: Record) {
        let key = record.key
        if let i = position[key] {
            last[i].record = record
        } else {
            position[key] = last.count
            last.append((key, record))
        }
        positionByCell[key.cell] = position[key]
    }

    /// The records that count: the last of each key, in order of first appearance.
    public var records: [Record] { last.map(\.record) }

    /// The status of the last record of a cell of this journal, nil when it has none.
    func lastStatus(of key: CellKey) -> CellStatus? {
        positionByCell[key].map { last[$0].record.status }
    }

    public func contains(_ key: CellKey) -> Bool { positionByCell[key] != nil }

    /// The cells of `cells` a resumed run still has to run: those without a record and,
    /// with `retryFailed`, those whose last record `failed` or timed out. (A cell cut
    /// short by an interrupt is not recorded at all, so it runs again.)
    public func pending(_ cells: [Cell], retryFailed: Bool) -> [Cell] {
        cells.filter { cell in
            guard let status = lastStatus(of: cell.key) else { return true }
            return retryFailed && (status == .failed || status == .timeout)
        }
    }
}
