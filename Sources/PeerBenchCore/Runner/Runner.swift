import Foundation
public import Logging

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

    public init(matrixFile: String, commandLine: [String], transports: [String]? = nil, seed: UInt64? = nil,
                repetitions: Int? = nil, cellTimeoutSeconds: Double? = nil, order: CellOrder? = nil, shard: Shard? = nil) {
        self.matrixFile = matrixFile
        self.commandLine = commandLine
        self.transports = transports
        self.seed = seed
        self.repetitions = repetitions
        self.cellTimeoutSeconds = cellTimeoutSeconds
        self.order = order
        self.shard = shard
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

    /// Applies the command line to the matrix and resolves every environment x distance.
    public init(matrix: Matrix, options: RunOptions, linkModel: any LinkModel) throws {
        var m = matrix
        if let wanted = options.transports {
            let known = m.transports.map(\.label)
            let unknown = wanted.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw InputError(source: "--transports", "unknown transport label\(unknown.count > 1 ? "s" : "") \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")); the matrix has: \(known.joined(separator: ", "))")
            }
            m.transports = m.transports.filter { wanted.contains($0.label) }
        }
        if let t = options.cellTimeoutSeconds { m.cellTimeoutSeconds = t }
        self.matrix = m
        self.options = options
        let canonical = m.cells(seed: options.seed, repetitions: options.repetitions)
        matrixCellCount = canonical.count
        order = options.order ?? m.order
        let mine = options.shard.map { $0.select(canonical) } ?? canonical
        cells = order.arrange(mine, seed: options.seed ?? m.seed)
        var links: [String: ResolvedLink] = [:]
        for env in m.environments {
            for d in m.distances {
                links[RunPlan.linkKey(env, d)] = try linkModel.resolve(env, d)
            }
        }
        self.links = links
    }

    public func link(for cell: Cell) -> ResolvedLink { links[RunPlan.linkKey(cell.environment, cell.distance)]! }

    static func linkKey(_ e: EnvironmentSpec, _ d: DistanceSpec) -> String { e.name + "\u{1}" + d.label }

    /// Rough wall time of the plan, seconds: plugin estimates where given, otherwise
    /// set-up + probes at twice the one-way delay + bytes at the link rate.
    public func estimatedSeconds(registry: PluginRegistry) -> Double {
        estimates(of: cells, registry: registry).reduce(0, +)
    }

    /// Expected wall time of each of `cells`, seconds, in the same order.
    public func estimates(of cells: [Cell], registry: PluginRegistry) -> [Double] {
        var plugins: [String: any TransportPlugin] = [:]
        return cells.map { cell in
            let link = self.link(for: cell)
            if plugins[cell.transport.label] == nil {
                plugins[cell.transport.label] = try? registry.make(cell.transport.plugin, options: cell.transport.options, path: .root).0
            }
            return plugins[cell.transport.label]?.estimatedSeconds(payload: cell.payload, rttProbes: matrix.rttProbes, link: link)
                ?? RunPlan.genericEstimate(payload: cell.payload, rttProbes: matrix.rttProbes, link: link)
        }
    }

    static func genericEstimate(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double {
        guard link.connected else { return 0 }
        let rtt = 2 * (link.delayMs ?? 0.05) / 1000
        let bytes = Double((payload?.count ?? 0) * (payload?.size ?? 0))
        let rate = (link.rateMbps ?? 5_000) * 1e6 / 8
        return 0.05 + Double(rttProbes) * rtt + bytes / rate
    }
}

/// Runs a plan's cells one at a time, appending each record to the journal before the
/// next starts. A failing, hanging or (with a worker) crashing cell is recorded and
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

    public init(registry: PluginRegistry, testbed: any Testbed, logger: Logger, worker: WorkerProcess? = nil,
                stopper: CellStopper = CellStopper()) {
        self.registry = registry
        self.testbed = testbed
        self.logger = logger
        self.worker = worker
        self.stopper = stopper
    }

    /// Runs `cells` (default: all of the plan's) and appends their records to `dir`.
    /// The summary counts this call's cells only.
    public func run(_ plan: RunPlan, cells: [Cell]? = nil, runID: String, into dir: RunDirectory,
                    observer: (any RunObserver)?) async throws -> RunSummary {
        let executor = CellExecutor(registry: registry, testbed: testbed, rttProbes: plan.matrix.rttProbes,
                                    timeoutSeconds: plan.matrix.cellTimeoutSeconds, logger: logger, worker: worker, stopper: stopper)
        let cells = cells ?? plan.cells
        var summary = RunSummary()
        for (i, cell) in cells.enumerated() {
            if stopper.hasFired {
                summary.interrupted = true
                break
            }
            observer?.cellStarted(index: i, total: cells.count, cell: cell)
            let record = await executor.run(cell, link: plan.link(for: cell), runID: runID)
            // A cell cut short by the stop measured nothing worth keeping: it is left
            // unrecorded and runs again on resume. One that got to the end is kept.
            if stopper.hasFired && record.status != .ok && record.status != .partial {
                summary.interrupted = true
                summary.interruptedCell = cell
                observer?.cellInterrupted(index: i, total: cells.count, cell: cell)
                break
            }
            try dir.append(record)
            summary.total += 1
            summary.byStatus[record.status, default: 0] += 1
            observer?.cellFinished(index: i, total: cells.count, cell: cell, record: record)
        }
        if stopper.hasFired { summary.interrupted = true }
        worker?.finish()
        return summary
    }
}
