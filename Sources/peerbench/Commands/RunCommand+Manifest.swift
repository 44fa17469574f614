import Foundation
import PeerBenchCore

/// Keeps manifest.json current through a run: written when the run starts, when it
/// ends, and from the signal handler. A resumed run keeps its run id and first start
/// time and adds a session; the summary always covers the whole journal.
final class ManifestBook: @unchecked Sendable {
    let dir: RunDirectory
    let plan: RunPlan
    let runID: String
    let linkMode: LinkMode
    let isolation: Isolation
    let versions: [String: String]
    let firstStartedAt: Date
    let sessionStartedAt = Date()
    let earlierSessions: [JSONValue]
    let commandLine: [String]
    private let lock = NSLock()
    private var _interruptedCell: Cell?
    var interruptedCell: Cell? {
        get { lock.withLock { _interruptedCell } }
        set { lock.withLock { _interruptedCell = newValue } }
    }

    init(dir: RunDirectory, plan: RunPlan, setup: RunSetup, linkMode: LinkMode, isolation: Isolation, versions: [String: String],
         commandLine: [String]) {
        self.dir = dir
        self.plan = plan
        runID = setup.runID
        self.linkMode = linkMode
        self.isolation = isolation
        self.versions = versions
        self.commandLine = commandLine
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        firstStartedAt = setup.previous?["started_at"]?.stringValue.flatMap { f.date(from: $0) } ?? sessionStartedAt
        earlierSessions = setup.previous?["sessions"]?.arrayValue ?? []
    }

    /// The last record of every cell of the plan, counted by status.
    func wholeRunSummary() -> RunSummary {
        RunSummary(lastRecordsOf: dir.readRecords().records, keys: Set(plan.cells.map(\.key)))
    }

    func write(status: String, ended: Bool) throws {
        let summary = wholeRunSummary()
        let now = Date()
        var extra = JSONObject()
        extra["isolation"] = .string(isolation.rawValue)
        extra["cells_recorded"] = JSONValue(summary.total)
        extra["interrupted_cell"] = interruptedCell.map {
            ["cell_id": .string($0.id), "repetition": JSONValue($0.repetition), "summary": .string($0.summary)]
        } ?? .null
        let session: JSONValue = ["started_at": .string(Manifest.rfc3339(sessionStartedAt)),
                                  "ended_at": ended ? .string(Manifest.rfc3339(now)) : .null,
                                  "status": .string(status), "command_line": .array(commandLine.map { .string($0) })]
        extra["sessions"] = .array(earlierSessions + [session])
        try dir.writeManifest(Manifest.make(runID: runID, plan: plan, linkMode: linkMode, startedAt: firstStartedAt,
                                            endedAt: ended ? now : nil, status: status, summary: summary, versions: versions,
                                            extra: extra))
    }
}
