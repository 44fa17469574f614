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

    public init(matrixFile: String, commandLine: [String], transports: [String]? = nil, seed: UInt64? = nil,
                repetitions: Int? = nil, cellTimeoutSeconds: Double? = nil) {
        self.matrixFile = matrixFile
        self.commandLine = commandLine
        self.transports = transports
        self.seed = seed
        self.repetitions = repetitions
        self.cellTimeoutSeconds = cellTimeoutSeconds
    }
}

/// What the runner tells its caller as cells go (the CLI prints progress from it).
public protocol RunObserver: Sendable {
    func cellStarted(index: Int, total: Int, cell: Cell)
    func cellFinished(index: Int, total: Int, cell: Cell, record: Record)
}

/// Counts of a finished run.
public struct RunSummary: Sendable {
    public var total = 0
    public var byStatus: [CellStatus: Int] = [:]
    public var notOK: Int { total - (byStatus[.ok] ?? 0) }
}

/// A run, planned: the matrix narrowed by the command line, its cells and their links.
public struct RunPlan: Sendable {
    public var matrix: Matrix
    public var options: RunOptions
    public var cells: [Cell]
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
        cells = m.cells(seed: options.seed, repetitions: options.repetitions)
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
        var total = 0.0
        var plugins: [String: any TransportPlugin] = [:]
        for cell in cells {
            let link = self.link(for: cell)
            if plugins[cell.transport.label] == nil {
                plugins[cell.transport.label] = try? registry.make(cell.transport.plugin, options: cell.transport.options, path: .root).0
            }
            total += plugins[cell.transport.label]?.estimatedSeconds(payload: cell.payload, rttProbes: matrix.rttProbes, link: link)
                ?? RunPlan.genericEstimate(payload: cell.payload, rttProbes: matrix.rttProbes, link: link)
        }
        return total
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
/// next starts. A failing or hanging cell is recorded and the run goes on.
public final class Runner: Sendable {
    public let registry: PluginRegistry
    public let testbed: any Testbed
    public let logger: Logger

    public init(registry: PluginRegistry, testbed: any Testbed, logger: Logger) {
        self.registry = registry
        self.testbed = testbed
        self.logger = logger
    }

    public func run(_ plan: RunPlan, runID: String, into dir: RunDirectory, observer: (any RunObserver)?) async throws -> RunSummary {
        let executor = CellExecutor(registry: registry, testbed: testbed, rttProbes: plan.matrix.rttProbes,
                                    timeoutSeconds: plan.matrix.cellTimeoutSeconds, logger: logger)
        var summary = RunSummary()
        for (i, cell) in plan.cells.enumerated() {
            observer?.cellStarted(index: i, total: plan.cells.count, cell: cell)
            let record = await executor.run(cell, link: plan.link(for: cell), runID: runID)
            try dir.append(record.json)
            summary.total += 1
            summary.byStatus[record.status, default: 0] += 1
            observer?.cellFinished(index: i, total: plan.cells.count, cell: cell, record: record)
        }
        return summary
    }
}
