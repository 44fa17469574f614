/// What a journal says about each cell: its records in order, the last one winning.
///
/// A journal may hold several records of one cell key (a `--retry-failed` rerun keeps
/// the earlier attempt as history); the last record is the cell's current outcome.
public struct JournalIndex: Sendable {
    /// The last record of every cell key, in order of first appearance.
    public private(set) var last: [(key: CellKey, record: JSONValue)] = []
    private var position: [CellKey: Int] = [:]

    public init(records: [JSONValue]) {
        for r in records {
            guard let key = JournalIndex.key(of: r) else { continue }
            if let i = position[key] {
                last[i].record = r
            } else {
                position[key] = last.count
                last.append((key, r))
            }
        }
    }

    /// The key a record is filed under, nil for a line that is not a cell record.
    public static func key(of record: JSONValue) -> CellKey? {
        guard let id = record["cell_id"]?.stringValue, let rep = record["repetition"]?.intValue else { return nil }
        return CellKey(cellID: id, repetition: rep)
    }

    /// The status of the cell's last record, nil when the cell has none.
    public func lastStatus(of key: CellKey) -> CellStatus? {
        position[key].flatMap { CellStatus(rawValue: last[$0].record["status"]?.stringValue ?? "") }
    }

    public func contains(_ key: CellKey) -> Bool { position[key] != nil }

    /// The cells of `cells` a resumed run still has to run: those without a record (or
    /// whose last record says `interrupted`) and, with `retryFailed`, those whose last
    /// record `failed` or timed out.
    public func pending(_ cells: [Cell], retryFailed: Bool) -> [Cell] {
        cells.filter { cell in
            guard let status = lastStatus(of: cell.key) else { return !contains(cell.key) }
            return status == .interrupted || (retryFailed && (status == .failed || status == .timeout))
        }
    }
}
