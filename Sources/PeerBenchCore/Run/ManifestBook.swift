import Foundation
import PeerBenchPlugin
import PeerBenchTestbed
import Synchronization

/// Keeps manifest.json current through a run: written when the run starts, when it
/// ends, and when it is abandoned (`MatrixRun.abandon`, a second stop signal). A
/// resumed run keeps its run id and first start time and adds a session; the summary
/// always covers the whole journal.
final class ManifestBook: Sendable {
    let dir: RunDirectory
    let plan: RunPlan
    let runID: String
    let linkMode: LinkMode
    let isolation: Isolation
    let versions: [String: String]
    let firstStartedAt: Date
    let sessionStartedAt = Date()
    let earlierSessions: [Manifest.Session]
    let commandLine: [String]
    /// Where this session runs (`Manifest.currentNode`): a resumed shard may be on another node.
    let node = Manifest.currentNode()
    private let _interruptedCell = Mutex<Cell?>(nil)
    /// Measured before the first cell (`FloorProbe`); written with every manifest.
    private let _measurementFloor = Mutex<MeasurementFloor?>(nil)
    var measurementFloor: MeasurementFloor? {
        get { _measurementFloor.withLock { $0 } }
        set { _measurementFloor.withLock { $0 = newValue } }
    }
    var interruptedCell: Cell? {
        get { _interruptedCell.withLock { $0 } }
        set { _interruptedCell.withLock { $0 = newValue } }
    }
    /// Auto repetitions: whose report goes into every manifest written.
    let judge: (any RepetitionJudge)?

    /// One write at a time: an abandoning thread's and the run's would share manifest.json.tmp.
    private let writing = Mutex(())

    init(
        dir: RunDirectory, plan: RunPlan, setup: RunSetup, linkMode: LinkMode, isolation: Isolation, versions: [String: String],
        commandLine: [String], judge: (any RepetitionJudge)? = nil
    ) {
        self.judge = judge
        self.dir = dir
        self.plan = plan
        runID = setup.runID
        self.linkMode = linkMode
        self.isolation = isolation
        self.versions = versions
        self.commandLine = commandLine
        firstStartedAt = setup.previous?.startedDate ?? sessionStartedAt
        earlierSessions = setup.previous?.sessions ?? []
    }

    /// The last record of every cell of the plan, counted by status.
    func wholeRunSummary() -> RunSummary {
        // Records of another run in the journal are not this run's cells (see `belonging`).
        let cells = Set(plan.cells.map(\.key))
        return RunSummary(lastRecordsOf: ownRecords(), keys: cells)
    }

    /// The records of this run's cells in the journal.
    func ownRecords() -> [Record] { Self.ownRecords(dir: dir, plan: plan, runID: runID) }

    static func ownRecords(dir: RunDirectory, plan: RunPlan, runID: String) -> [Record] {
        dir.readRecords().belonging(toRun: runID, cells: Set(plan.cells.map(\.key)), journal: dir.journalPath).own
    }

    func write(status: String, ended: Bool) throws {
        let summary = wholeRunSummary()
        let now = Date()
        var m = Manifest(
            runID: runID, plan: plan, linkMode: linkMode, startedAt: firstStartedAt, endedAt: ended ? now : nil,
            status: status, summary: summary, versions: versions)
        m.isolation = isolation.rawValue
        m.node = node
        m.cellsRecorded = summary.total
        m.interruptedCell = interruptedCell.map { Manifest.InterruptedCell(cellID: $0.id, repetition: $0.repetition, summary: $0.summary) }
        let session = Manifest.Session(
            startedAt: Manifest.rfc3339(sessionStartedAt), endedAt: ended ? Manifest.rfc3339(now) : nil,
            status: status, commandLine: commandLine, node: node)
        m.sessions = earlierSessions + [session]
        m.measurementFloor = measurementFloor
        m.autoRepetitions = judge?.report
        try writing.withLock { _ in try dir.writeManifest(m) }
    }
}
