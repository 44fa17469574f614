import Foundation
public import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Settings of one run that come from the command line rather than the matrix.
public struct RunOptions: Sendable {
    public var matrixFile: String
    public var commandLine: [String]
    /// Labels to run (nil = all of the matrix's transports).
    public var transports: [String]?
    public var seed: UInt64?
    public var repetitions: Int?
    public var cellTimeoutSeconds: Double?
    /// nil = the matrix's `"order"` (default interleaved).
    public var order: CellOrder?
    /// nil = every cell.
    public var shard: Shard?
    /// `--note`; nil keeps a resumed run's note.
    public var note: String?
    /// `--repetitions auto[:MAX]` (then `repetitions` is MAX) or a fixed count (false);
    /// nil: as the matrix says.
    public var autoRepetitions: Bool?

    public init(
        matrixFile: String, commandLine: [String], transports: [String]? = nil, seed: UInt64? = nil,
        repetitions: Int? = nil, cellTimeoutSeconds: Double? = nil, order: CellOrder? = nil, shard: Shard? = nil, note: String? = nil,
        autoRepetitions: Bool? = nil
    ) {
        self.matrixFile = matrixFile
        self.commandLine = commandLine
        self.transports = transports
        self.seed = seed
        self.repetitions = repetitions
        self.cellTimeoutSeconds = cellTimeoutSeconds
        self.order = order
        self.shard = shard
        self.note = note
        self.autoRepetitions = autoRepetitions
    }
}

/// What the runner tells its caller as cells go (the CLI prints progress from it).
public protocol RunObserver: Sendable {
    func cellStarted(index: Int, total: Int, cell: Cell)
    func cellFinished(index: Int, total: Int, cell: Cell, record: Record)
    /// The run was interrupted while `cell` ran; it is not recorded and runs again on resume.
    func cellInterrupted(index: Int, total: Int, cell: Cell)
}

extension RunObserver {
    public func cellInterrupted(index: Int, total: Int, cell: Cell) {}
}

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

/// A run, planned: the matrix narrowed by the command line, its cells and their links.
public struct RunPlan: Sendable {
    public var matrix: Matrix
    public var options: RunOptions
    /// The cells this run executes, in run order: the shard's share, arranged by `order`.
    public var cells: [Cell]
    /// Cells of the whole matrix (all shards), for messages.
    public var matrixCellCount: Int
    public var order: CellOrder
    public var links: [String: ResolvedLink]

    /// Estimated seconds of any of the matrix's cells (see `CellCostModel`).
    public var costModel: CellCostModel
    /// Measured times of a past run that `estimates(of:)` prefer (see `calibrate`).
    public var calibration: CostCalibration?

    /// Applies the command line to the matrix and resolves every environment x distance.
    /// `registry` lets the plugins' own estimates into the cost model (and so into the
    /// shard balance): pass it wherever the plan is run or shown.
    public init(matrix: Matrix, options: RunOptions, linkModel: any LinkModel, registry: PluginRegistry? = nil) throws {
        var m = matrix
        if let wanted = options.transports {
            let known = m.transports.map(\.label)
            let unknown = wanted.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw InputError(
                    source: "--transports",
                    "unknown transport label\(unknown.count > 1 ? "s" : "") \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); the matrix has: \(known.joined(separator: ", "))"
                )
            }
            m.transports = m.transports.filter { wanted.contains($0.label) }
        }
        if let t = options.cellTimeoutSeconds { m.cellTimeoutSeconds = t }
        switch options.autoRepetitions {
        case false?: m.autoRepetitions = nil
        case true?:
            var rule = m.autoRepetitions ?? AutoRepetitions()
            rule.max = options.repetitions ?? rule.max
            m.autoRepetitions = rule
            m.repetitions = rule.max
        case nil: if let n = options.repetitions { m.autoRepetitions?.max = n }
        }
        // --repetitions can multiply a matrix the loader accepted: count before expanding.
        let total = m.cellCount(repetitions: options.repetitions)
        guard total <= MatrixLoader.Limits.cells else {
            throw InputError(
                source: "--repetitions",
                "the matrix would expand to \(total) cells with \(options.repetitions ?? m.repetitions) repetitions, more than the limit of \(MatrixLoader.Limits.cells); use fewer repetitions, or split the matrix"
            )
        }
        self.matrix = m
        self.options = options
        var links: [String: ResolvedLink] = [:]
        for env in m.environments {
            for d in m.distances {
                for scenario in m.scenarios {
                    links[RunPlan.linkKey(env, d, scenario)] = try linkModel.resolve(env, d, scenario: scenario)
                }
            }
        }
        self.links = links
        let costModel = CellCostModel(
            transports: m.transports, rttProbes: m.rttProbes, cellTimeoutSeconds: m.cellTimeoutSeconds,
            registry: registry, rttMethod: m.rttMethod, rttPayloads: m.rttPayloads,
            rttProbeSpacingNanos: m.rttProbeSpacingNanos, appLoop: m.appLoop)
        self.costModel = costModel
        let canonical = m.cells(seed: options.seed, repetitions: options.repetitions)
        matrixCellCount = canonical.count
        order = options.order ?? m.order
        if m.transportsAtOnce && order == .sequential {
            throw InputError(
                source: "--order",
                "\"sequential\" runs a transport's cells back to back, but the matrix's \"transportsAtOnce\" runs each block's transports together; use interleaved or shuffled"
            )
        }
        let mine =
            options.shard.map {
                $0.select(canonical, atOnce: m.transportsAtOnce) {
                    costModel.seconds($0, link: links[RunPlan.linkKey($0.environment, $0.distance, $0.scenario)]!)
                }
            } ?? canonical
        cells = order.arrange(mine, seed: m.runSeed(options.seed))
    }

    public func link(for cell: Cell) -> ResolvedLink { links[RunPlan.linkKey(cell.environment, cell.distance, cell.scenario)]! }

    /// The key of `links`; a static scenario adds nothing, so it is the environment and distance alone.
    public static func linkKey(_ e: EnvironmentSpec, _ d: DistanceSpec, _ scenario: ScenarioSpec = .static) -> String {
        e.name + "\u{1}" + d.label + (scenario.isStatic ? "" : "\u{1}" + scenario.name)
    }

    /// Expected wall time of the plan, seconds (see `CellCostModel`).
    public func estimatedSeconds() -> Double {
        estimates(of: cells).reduce(0, +)
    }

    /// Expected wall time of each of `cells`, seconds, in the same order: the cost
    /// model, or what a past run measured (`calibration`).
    /// With `transportsAtOnce` a block takes as long as its slowest transport: each of
    /// its cells is given an equal share of that, so the block's sum is its time.
    public func estimates(of cells: [Cell]) -> [Double] {
        let each = cells.map { cell in
            let modelled = costModel.seconds(cell, link: link(for: cell))
            return calibration?.seconds(cell, modelled: modelled) ?? modelled
        }
        guard matrix.transportsAtOnce else { return each }
        var shared = each
        for block in Runner.blockRanges(of: cells) {
            let share = each[block].max()! / Double(block.count)
            for i in block { shared[i] = share }
        }
        return shared
    }

    /// The whole matrix (all shards) dealt to `shards` shards, as `--shard K/N` deals it.
    public func shardBalance(shards: Int) -> ShardBalance {
        ShardBalance(matrix.cells(seed: options.seed, repetitions: options.repetitions), shards: shards, atOnce: matrix.transportsAtOnce) {
            costModel.seconds($0, link: link(for: $0))
        }
    }
}

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
