import Foundation
public import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Runs a plan's cells one at a time (with `transportsAtOnce`: one block of cells at a
/// time, its transports together over one link), appending each record to the journal
/// before the next starts. A failing, hanging or (with a worker) crashing cell is recorded and
/// the run goes on; a fired `stopper` ends the run after the current cell.
public final class Runner: Sendable {
    public let registry: PluginRegistry
    public let testbed: any Testbed
    public let logger: Logger
    /// Runs the plugins when set (process isolation); nil runs them in this process.
    public let worker: WorkerProcess?
    /// Fire it (from a signal handler) to stop the run: the running cell is stopped at
    /// once and not recorded, no further cell starts.
    public let stopper: CellStopper
    /// `--interactive`: asks before each new environment x distance (see FieldPrompt).
    public let fieldPrompter: FieldPrompter?

    public init(
        registry: PluginRegistry, testbed: any Testbed, logger: Logger, worker: WorkerProcess? = nil,
        stopper: CellStopper = CellStopper(), fieldPrompter: FieldPrompter? = nil
    ) {
        self.registry = registry
        self.testbed = testbed
        self.logger = logger
        self.worker = worker
        self.stopper = stopper
        self.fieldPrompter = fieldPrompter
    }

    /// Runs `cells` (default: all of the plan's) and appends their records to `dir`.
    /// The summary counts this call's cells only.
    /// `judge` (auto repetitions) skips the cells of scenarios it has settled.
    public func run(
        _ plan: RunPlan, cells: [Cell]? = nil, runID: String, into dir: RunDirectory,
        observer: (any RunObserver)?, judge: (any RepetitionJudge)? = nil
    ) async throws -> RunSummary {
        let executor = CellExecutor(
            registry: registry, testbed: testbed, rttProbes: plan.matrix.rttProbes,
            timeoutSeconds: plan.matrix.cellTimeoutSeconds, logger: logger, worker: worker, stopper: stopper,
            rttMethod: plan.matrix.rttMethod, rttProbeSpacingNanos: plan.matrix.rttProbeSpacingNanos,
            rttPayloads: plan.matrix.rttPayloads, appLoop: plan.matrix.appLoop)
        var cells = cells ?? plan.cells
        var field = fieldPrompter.map(FieldGate.init)
        if field != nil { cells = FieldPrompter.groupedBySite(cells) }
        // `transportsAtOnce`: a block's cells run together and are recorded together;
        // otherwise every cell is a group of its own.
        let groups: [Range<Int>] = plan.matrix.transportsAtOnce ? Runner.blockRanges(of: cells) : cells.indices.map { $0..<($0 + 1) }
        let pool = WorkerPool(first: worker)
        defer { pool.finishExtra() }
        var summary = RunSummary()
        groups: for group in groups {
            let members = Array(cells[group])
            switch await admission(members, at: group.lowerBound, of: cells, field: &field, judge: judge) {
            case .run: break
            case .skip:
                summary.skippedCells += group.count
                continue
            case .settled:
                summary.settledCells += group.count
                continue
            case .stop:
                summary.interrupted = true
                break groups
            }
            for (k, cell) in zip(group, members) { observer?.cellStarted(index: k, total: cells.count, cell: cell) }
            let records =
                members.count == 1 && !plan.matrix.transportsAtOnce
                ? [await executor.run(members[0], link: plan.link(for: members[0]), runID: runID)]
                : await executor.runTogether(members, link: plan.link(for: members[0]), runID: runID, workers: pool.workers(members.count))
            guard
                try keep(
                    records, of: members, at: group, total: cells.count, into: dir, observer: observer, judge: judge,
                    summary: &summary)
            else { break }
            if let lost = testbed.lostReason {
                summary.testbedLost = lost
                break
            }
        }
        if stopper.hasFired { summary.interrupted = true }
        summary.skippedSites = field?.skipped ?? []
        worker?.finish()
        return summary
    }
}

extension Runner {
    /// What the run does with a group of cells before running it.
    enum Admission { case run, skip, settled, stop }

    /// The stop, the field prompt (`--interactive`) and the repetition judge, asked in that order.
    func admission(
        _ members: [Cell], at index: Int, of cells: [Cell], field: inout FieldGate?,
        judge: (any RepetitionJudge)?
    ) async -> Admission {
        if stopper.hasFired { return .stop }
        switch await field?.decide(cells, at: index, stopper: stopper) ?? .run {
        case .run: break
        case .skip: return .skip
        case .stop: return .stop
        }
        // A block runs whole while any of its transports still needs a repetition:
        // leaving one out would change the load the others shared the link with.
        if let judge, !members.contains(where: judge.needs) { return .settled }
        return .run
    }

    /// Appends a group's records to the journal; false (nothing appended) when the stop
    /// cut one of them short, which ends the run. A cell cut short by the stop measured
    /// nothing worth keeping: it is left unrecorded and runs again on resume. One that
    /// got to the end is kept. A block that ran at once is kept or dropped whole: its
    /// other transports' figures were measured beside the one cut short.
    func keep(
        _ records: [Record], of members: [Cell], at group: Range<Int>, total: Int, into dir: RunDirectory,
        observer: (any RunObserver)?, judge: (any RepetitionJudge)?, summary: inout RunSummary
    ) throws -> Bool {
        if stopper.hasFired, let cut = records.firstIndex(where: { $0.status != .ok && $0.status != .partial }) {
            summary.interrupted = true
            summary.interruptedCell = members[cut]
            for (k, cell) in zip(group, members) { observer?.cellInterrupted(index: k, total: total, cell: cell) }
            return false
        }
        for (k, (cell, record)) in zip(group, zip(members, records)) {
            try dir.append(record, withSamples: true)
            judge?.add(record)
            summary.total += 1
            summary.byStatus[record.status, default: 0] += 1
            observer?.cellFinished(index: k, total: total, cell: cell, record: record)
        }
        return true
    }

    /// The index ranges of the blocks (`CellOrder.blocks`) of `cells`, which keep each
    /// block's cells next to each other (every order but `sequential` does).
    static func blockRanges(of cells: [Cell]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for block in CellOrder.blocks(of: cells) {
            ranges.append(start..<(start + block.count))
            start += block.count
        }
        return ranges
    }
}
