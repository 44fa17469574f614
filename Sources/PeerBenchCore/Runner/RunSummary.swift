import PeerBenchPlugin
import PeerBenchTestbed

/// Counts of a finished run.
public struct RunSummary: Sendable {
    public var total = 0
    public var byStatus: [CellStatus: Int] = [:]
    public var notOK: Int { total - (byStatus[.ok] ?? 0) }
    /// Set when a stop was requested (SIGINT/SIGTERM): the run ended early.
    public var interrupted = false
    /// The cell that was running when the stop came and was abandoned (not recorded).
    public var interruptedCell: Cell?
    /// Set when the testbed could run no further cell (`Testbed.lostReason`: the peer
    /// host went away): the run stopped after recording the cell that saw it.
    public var testbedLost: String?
    /// `--interactive`: the places the user skipped and how many cells they held (not recorded).
    public var skippedSites: [FieldSite] = []
    public var skippedCells = 0
    /// Auto repetitions: cells left out because their scenario was already settled.
    public var settledCells = 0

    public init() {}

    /// Counts of the last record of every cell key in `records` (a retried cell counts once).
    public init(lastRecordsOf records: [Record], keys: Set<CellKey>? = nil) {
        for (key, r) in JournalIndex(records: records).last where keys?.contains(key.cell) ?? true {
            total += 1
            byStatus[r.status, default: 0] += 1
        }
    }
}
