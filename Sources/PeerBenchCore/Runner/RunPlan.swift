import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

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
    /// With `transportsAtOnce` a block takes as long as its slowest transport plus the
    /// others' bulk phases, whose bytes share the same air: each of its cells is given an
    /// equal share of that, so the block's sum is its time. (As long as the slowest alone
    /// gave 0.59 of the actual time of matrices/field-study-2025-at-once.json, shard 1/4,
    /// 2026-12-02.)
    public func estimates(of cells: [Cell]) -> [Double] {
        let each = cells.map { cell in
            let modelled = costModel.seconds(cell, link: link(for: cell))
            return calibration?.seconds(cell, modelled: modelled) ?? modelled
        }
        guard matrix.transportsAtOnce else { return each }
        var shared = each
        for block in Runner.blockRanges(of: cells) {
            let slowest = block.max { each[$0] < each[$1] }!
            let others = block.filter { $0 != slowest }.map { costModel.bulkSeconds(cells[$0], link: link(for: cells[$0])) }
            let share = (each[slowest] + others.reduce(0, +)) / Double(block.count)
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
