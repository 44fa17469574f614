public import Logging
public import PeerBenchJSON
import PeerBenchSystem
import Synchronization

/// Everything a plugin needs to run its side of one cell.
public struct CellContext: Sendable {
    /// The cell's id (the record's `cell_id`) and its repetition, from 1.
    public var cellID: String, repetition: Int
    /// Per-cell seed (derived from the run seed and the cell id); use it for any randomness.
    public var seed: UInt64
    /// The bulk phase; nil for plugins that do not use payloads.
    public var payload: Payload?
    /// How many idle RTT probes to send and time (`TransportMeasurement.rttNanos`).
    public var rttProbes: Int
    /// What the application sends (matrix key `workloads`); `.upload` unless the matrix
    /// says otherwise. Only a plugin whose `check(workload:path:)` accepted it sees another.
    public var workload: WorkloadSpec = .upload
    /// How the `rttProbes` probes are sent (matrix key `rttMethod`). A plugin that
    /// cannot pipeline runs ping-pong and says so in `TransportMeasurement.rttMethod`.
    public var rttMethod: RTTMethod
    /// Pipelined probes: nanoseconds between probe sends (matrix key `rttProbeIntervalMs`;
    /// 0 = back to back). `PipelinedProbeTimes.waitForSend` paces them.
    public var rttProbeSpacingNanos: UInt64 = 0
    /// The application's time per message at each end (matrix key `appLoop`; `.none`
    /// unless the matrix says otherwise). Both the server and the client see it.
    public var appLoop: AppLoop = .none
    /// Monotonic deadline (nanoseconds, `MonotonicClock`) by which the cell must end.
    public var deadline: UInt64
    /// The link the cell runs over, as resolved for its environment and distance.
    public var link: ResolvedLink
    /// Where the client and the server run (`Endpoint.run`).
    public var client: Endpoint, server: Endpoint
    /// Register every socket here (or use PeerBenchSockets' scopes): the deadline shuts them.
    public var cancellation: CellCancellation
    /// The run's log (swift-log).
    public var logger: Logger
    /// What the server said for its client (`TransportServer.hello`), handed over by
    /// the runner before `runClient`; empty on the server's side.
    public var serverHello: JSONObject
    /// The transport entry's Wi-Fi settings. Every socket the cell's scopes see
    /// (`track`, `withSocket`, ...) is marked with its service class.
    public var wifi: WifiSettings = .default
    /// The cell's data-plane key (`CellDataKey`) over a remote link; nil otherwise.
    public var dataKey: [UInt8]?
    /// Over a remote link, the SHA-256 of the certificate serve's data plane presents
    /// (`CertificatePin`): tls and quic clients check it instead of the CA and a name.
    public var certificatePin: [UInt8]?

    public init(
        cellID: String, repetition: Int, seed: UInt64, payload: Payload?, rttProbes: Int, deadline: UInt64,
        link: ResolvedLink, client: Endpoint, server: Endpoint, cancellation: CellCancellation, logger: Logger,
        serverHello: JSONObject = JSONObject(), rttMethod: RTTMethod = .pingPong
    ) {
        self.cellID = cellID
        self.repetition = repetition
        self.seed = seed
        self.payload = payload
        self.rttProbes = rttProbes
        self.rttMethod = rttMethod
        self.deadline = deadline
        self.link = link
        self.client = client
        self.server = server
        self.cancellation = cancellation
        self.logger = logger
        self.serverHello = serverHello
    }

    /// Nanoseconds left until the deadline (0 when past it).
    public var remainingNanos: UInt64 {
        let now = MonotonicClock.now()
        return deadline > now ? deadline - now : 0
    }
}
