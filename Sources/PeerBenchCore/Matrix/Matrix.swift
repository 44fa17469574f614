import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// A validated test matrix: environments x distances x payloads, the transports to
/// run in each, and the run's settings. Built by `MatrixLoader` from matrix.json.
public struct Matrix: Sendable {
    public var name: String
    /// With `autoRepetitions`, its MAX: the plan holds every repetition a scenario may need.
    public var repetitions: Int
    /// `"repetitions": "auto[:MAX]"` with `"repetitionPrecision"`; nil for a fixed count.
    public var autoRepetitions: AutoRepetitions?
    public var rttProbes: Int
    /// How the RTT probes are sent (`"rttMethod"`); `.pingPong` when absent.
    public var rttMethod: RTTMethod = .pingPong
    /// Pipelined probes only: nanoseconds between probe sends (`"rttProbeIntervalMs"`); 0 = back to back.
    public var rttProbeSpacingNanos: UInt64 = 0
    /// The application's time per message at each end (`"appLoop"`); `.none` when absent.
    /// A method setting, like `rttMethod`: not part of the cell id.
    public var appLoop: AppLoop = .none
    /// The cells that run the RTT probes (`"rttPayloads"`); nil = every cell.
    /// `rttProbes(for:)` applies it.
    public var rttPayloads: RTTPayloadSelection?
    /// `"transportsAtOnce"`: each block's transports (one repetition x environment x
    /// distance x payload) run at the same time over one shared link instead of one
    /// after another; false when absent. See `CellExecutor.runTogether`.
    public var transportsAtOnce = false
    public var cellTimeoutSeconds: Double
    /// The matrix's `"seed"`; a run's seed is `runSeed(_:)`.
    public var seed: UInt64
    public var transports: [TransportSpec]
    public var environments: [EnvironmentSpec]
    public var distances: [DistanceSpec]
    public var counts: [Int]
    public var sizes: [Int]
    /// How the link changes during a cell (`"scenarios"`); `[.static]` when absent.
    public var scenarios: [ScenarioSpec] = [.static]
    /// What the application sends (`"workloads"`, docs/WORKLOADS.md); `[.upload]` when absent.
    public var workloads: [WorkloadSpec] = [.upload]
    /// The competing-flow variants each cell runs with (`crossTraffic`); nil = none.
    /// `[nil]` when the matrix has no `crossTraffic`.
    public var crossTraffic: [CrossTrafficSpec?] = [nil]
    /// The document as read, for the manifest; `hash` identifies it.
    public var document: JSONValue

    /// Identifies the matrix's content (FNV-1a 64 of its compact JSON), so a run
    /// folder can tell whether records came from the same matrix.
    public var hash: String { "fnv1a64:" + StableHash.hex(document.compactText) }

    public var payloads: [Payload] { counts.flatMap { c in sizes.map { Payload(count: c, size: $0) } } }
}

extension Matrix {
    /// The seed rule, in one place: a run's seed is the command line's (`--seed`) when
    /// given, else the matrix's. Cell seeds, the cell order and the manifest follow it.
    func runSeed(_ commandLine: UInt64?) -> UInt64 { commandLine ?? seed }
}
