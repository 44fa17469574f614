/// The identity and workload of a cell, without its endpoints: what a worker process
/// needs besides the plugin to build the `CellContext`.
public struct CellContextSeed: Sendable {
    /// As `CellContext`'s: the cell's id, repetition, seed, payload and RTT probes.
    public var cellID: String, repetition: Int, seed: UInt64, payload: Payload?, rttProbes: Int
    /// How the probes are sent (matrix key `rttMethod`).
    public var rttMethod: RTTMethod
    /// Pipelined probes: nanoseconds between sends (matrix key `rttProbeIntervalMs`).
    public var rttProbeSpacingNanos: UInt64
    /// What the application sends (matrix key `workloads`).
    public var workload: WorkloadSpec = .upload
    /// The application's time per message at each end (matrix key `appLoop`).
    public var appLoop: AppLoop = .none

    public init(
        cellID: String, repetition: Int, seed: UInt64, payload: Payload?, rttProbes: Int, rttMethod: RTTMethod = .pingPong,
        rttProbeSpacingNanos: UInt64 = 0
    ) {
        self.rttProbeSpacingNanos = rttProbeSpacingNanos
        self.cellID = cellID
        self.repetition = repetition
        self.seed = seed
        self.payload = payload
        self.rttProbes = rttProbes
        self.rttMethod = rttMethod
    }
}
