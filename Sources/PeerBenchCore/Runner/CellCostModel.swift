/// Expected wall time of one cell, seconds: what `validate`, `run --dry-run`, the
/// progress ETA and the shard balancing all use, so they agree with each other.
///
/// A plugin's own `estimatedSeconds` wins where it gives one (UWB ranging lasts its
/// configured duration); otherwise the generic model of `CellCost` applies.
public struct CellCostModel: Sendable {
    /// One plugin value per transport label (nil when no registry was given or the
    /// plugin could not be made: the generic model applies).
    private let plugins: [String: any TransportPlugin]
    public let rttProbes: Int

    /// `registry` nil: the generic model for every transport (unit tests with fakes).
    public init(transports: [TransportSpec], rttProbes: Int, registry: PluginRegistry?) {
        var plugins: [String: any TransportPlugin] = [:]
        if let registry {
            for t in transports {
                plugins[t.label] = try? registry.make(t.plugin, options: t.options, path: .root).0
            }
        }
        self.plugins = plugins
        self.rttProbes = rttProbes
    }

    /// Seconds `cell` is expected to take over `link`.
    public func seconds(_ cell: Cell, link: ResolvedLink) -> Double {
        plugins[cell.transport.label]?.estimatedSeconds(payload: cell.payload, rttProbes: rttProbes, link: link)
            ?? CellCost.generic(payload: cell.payload, rttProbes: rttProbes, link: link)
    }
}

/// The generic per-cell cost, for plugins that give no estimate of their own.
public enum CellCost {
    /// Set-up + probes at twice the one-way delay + bytes at the link rate.
    public static func generic(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double {
        guard link.connected else { return 0 }
        let rtt = 2 * (link.delayMs ?? 0.05) / 1000
        let bytes = Double((payload?.count ?? 0) * (payload?.size ?? 0))
        let rate = (link.rateMbps ?? 5_000) * 1e6 / 8
        return 0.05 + Double(rttProbes) * rtt + bytes / rate
    }
}
