import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

/// One unit of work: environment x distance x payload x transport x repetition.
public struct Cell: Sendable, Hashable {
    /// Stable across runs and machines: a hash of the cell's parameters (not the repetition).
    public var id: String
    public var repetition: Int
    /// Derived from the run seed, the cell id and the repetition: a rerun emulates the same link trace.
    public var seed: UInt64
    public var transport: TransportSpec
    public var environment: EnvironmentSpec
    public var distance: DistanceSpec
    /// nil for plugins that do not use payloads.
    public var payload: Payload?
    /// How the link changes during the cell (`.static` unless the matrix has `"scenarios"`).
    public var scenario: ScenarioSpec = .static
    /// What the application sends (`.upload` unless the matrix has `"workloads"`).
    public var workload: WorkloadSpec = .upload
    /// The flow competing with this cell (`crossTraffic`); nil = none.
    public var crossTraffic: CrossTrafficSpec? = nil

    /// A short human description: `tcp-nodelay · forest · 10 m · 100x128 B`.
    public var summary: String {
        var parts = [transport.label, environment.name, distance == .max ? "max" : "\(distance.label) m"]
        if let p = payload { parts.append("\(p.count)x\(p.size) B") }
        if !workload.isDefault { parts.append(workload.name) }
        if !scenario.isStatic { parts.append(scenario.name) }
        if let c = crossTraffic { parts.append("cross \(c)") }
        if repetition > 1 { parts.append("rep \(repetition)") }
        return parts.joined(separator: " · ")
    }

    /// The key a journal is indexed by: a cell id and repetition appear at most once.
    public var key: CellKey { CellKey(cellID: id, repetition: repetition) }
}

extension Matrix {
    /// Expands the matrix into cells, in run order: repetition, environment, distance,
    /// scenario, workload, payload, cross traffic, then transport innermost — so transports alternate (A B A B) and slow
    /// drift of the machine does not favour one. Plugins that ignore payloads appear
    /// once per environment x distance (and run the default workload); a workload that
    /// carries its own sizes (not bulk) runs once, without a payload.
    public func cells(seed runSeed: UInt64? = nil, repetitions reps: Int? = nil) -> [Cell] {
        let s = self.runSeed(runSeed)
        var out: [Cell] = []
        for rep in 1...(reps ?? repetitions) {
            for env in environments {
                for dist in distances {
                    for scenario in scenarios {
                        for (wi, workload) in workloads.enumerated() {
                            for (pi, payload) in payloads.enumerated() {
                                if !workload.usesPayload && pi > 0 { continue }
                                for cross in crossTraffic {
                                    for t in transports {
                                        if !t.usesPayload && (pi > 0 || wi > 0) { continue }
                                        let w = t.usesPayload ? workload : .upload
                                        let p = t.usesPayload && w.usesPayload ? payload : nil
                                        let id = Matrix.cellID(
                                            environment: env, distance: dist, payload: p, transport: t, scenario: scenario,
                                            crossTraffic: cross, workload: w)
                                        // 53 bits, so the seed survives JSON (a double) exactly.
                                        let cellSeed = SplitMix64.mix(s ^ FNV1a64.hash(id) ^ SplitMix64.mix(UInt64(rep))) & (1 << 53 - 1)
                                        var cell = Cell(
                                            id: id, repetition: rep, seed: cellSeed, transport: t, environment: env,
                                            distance: dist, payload: p, scenario: scenario, crossTraffic: cross)
                                        cell.workload = w
                                        out.append(cell)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// A cell's id: 16 hex digits of FNV-1a over its canonical parameters. The scenario,
    /// `wifi`, the cross traffic and the workload join them only when the matrix has
    /// them, so matrices without them keep their ids; so do the transport's options
    /// (`CellIDOptions`: written ones over the plugin's frozen base, never this version's
    /// defaults). A moved id needs `Tests/PeerBenchCLITests/Golden/cell-ids.json` updated
    /// in the same commit (docs/RECORDS.md, "Cell ids").
    public static func cellID(
        environment: EnvironmentSpec, distance: DistanceSpec, payload: Payload?, transport: TransportSpec,
        scenario: ScenarioSpec = .static, crossTraffic: CrossTrafficSpec? = nil,
        workload: WorkloadSpec = .upload
    ) -> String {
        let p = payload.map { "\($0.count)x\($0.size)" } ?? "-"
        var parts = [
            environment.json.compactText, distance.label, p, transport.plugin, transport.label,
            (transport.identityOptions ?? transport.effectiveOptions).compactText,
        ]
        if !scenario.isStatic { parts.append("scenario:" + (scenario.json?.compactText ?? scenario.name)) }
        if let wifi = transport.wifi { parts.append(wifi.canonicalText) }
        if let crossTraffic { parts.append(crossTraffic.canonicalText) }
        if let w = workload.json { parts.append("workload:" + w.compactText) }
        return StableHash.hex(parts.joined(separator: "|"))
    }
}
