import PeerBenchPlugin
import PeerBenchTestbed

/// Expected wall time of one cell, seconds: what `validate`, `run --dry-run`, the
/// progress ETA and the shard balancing all use, so they agree with each other.
///
/// A plugin's own `estimatedSeconds` wins where it gives one (UWB ranging lasts its
/// configured duration); otherwise `CellCost` models what a cell spends. Either way
/// a cell ends at its timeout: nothing is estimated past `cellTimeoutSeconds`.
public struct CellCostModel: Sendable {
    /// One plugin value per transport label (nil when no registry was given or the
    /// plugin could not be made: the generic model applies).
    private let plugins: [String: any TransportPlugin]
    public let rttProbes: Int
    public let rttMethod: RTTMethod
    /// The cells that probe (matrix key `rttPayloads`); the others cost no probe time.
    public let rttPayloads: RTTPayloadSelection?
    /// Pipelined probes: nanoseconds between sends (matrix key `rttProbeIntervalMs`).
    public let rttProbeSpacingNanos: UInt64
    /// The application's time per message (matrix key `appLoop`).
    public let appLoop: AppLoop
    public let cellTimeoutSeconds: Double

    /// `registry` nil: the generic model for every transport (unit tests with fakes).
    public init(
        transports: [TransportSpec], rttProbes: Int, cellTimeoutSeconds: Double, registry: PluginRegistry?,
        rttMethod: RTTMethod = .pingPong, rttPayloads: RTTPayloadSelection? = nil, rttProbeSpacingNanos: UInt64 = 0,
        appLoop: AppLoop = .none
    ) {
        self.appLoop = appLoop
        var plugins: [String: any TransportPlugin] = [:]
        if let registry {
            for t in transports {
                plugins[t.label] = try? registry.make(t.plugin, options: t.options, path: .root).0
            }
        }
        self.plugins = plugins
        self.rttProbes = rttProbes
        self.rttMethod = rttMethod
        self.rttPayloads = rttPayloads
        self.rttProbeSpacingNanos = rttProbeSpacingNanos
        self.cellTimeoutSeconds = cellTimeoutSeconds
    }

    /// Seconds `cell` is expected to take over `link`.
    public func seconds(_ cell: Cell, link resolved: ResolvedLink) -> Double {
        guard resolved.connected else { return CellCost.setUpSeconds }
        let (plugin, link, probes) = inputs(cell, resolved)
        let own = plugin?.estimatedSeconds(payload: cell.payload, rttProbes: probes, link: link)
        let s =
            (own
                ?? CellCost.model(
                    payload: cell.payload, rttProbes: probes, link: link, rttMethod: rttMethod,
                    spacingNanos: rttProbeSpacingNanos, appLoop: appLoop, hints: plugin?.costHints(link: link) ?? CostHints()))
            + CellCost.workloadSeconds(cell.workload, link: link)
        // A cell that would outlast its timeout is stopped there (then torn down).
        return min(s, cellTimeoutSeconds + CellCost.setUpSeconds)
    }

    /// The bulk phase of `seconds` alone (0 for a plugin with its own estimate): what a
    /// cell adds to a block whose transports share one link (`transportsAtOnce`).
    public func bulkSeconds(_ cell: Cell, link resolved: ResolvedLink) -> Double {
        guard resolved.connected else { return 0 }
        let (plugin, link, probes) = inputs(cell, resolved)
        if plugin?.estimatedSeconds(payload: cell.payload, rttProbes: probes, link: link) != nil { return 0 }
        return CellCost.bulkSeconds(payload: cell.payload, link: link, appLoop: appLoop, hints: plugin?.costHints(link: link) ?? CostHints())
    }

    /// The cell's plugin, the link it runs over and its probe count. The link is adapted
    /// to the cell's transport's performance mode (`realtime` has no availability
    /// windows), as in CellExecutor: estimated over the environment's own schedule,
    /// matrices/modes.json's realtime cells were 7 times their actual time (2026-12-02).
    private func inputs(_ cell: Cell, _ resolved: ResolvedLink) -> (plugin: (any TransportPlugin)?, link: ResolvedLink, probes: Int) {
        (
            plugins[cell.transport.label], resolved.adapted(to: cell.transport.effectiveWifi),
            RTTPayloadSelection.probes(rttProbes, payload: cell.payload, selection: rttPayloads)
        )
    }
}
