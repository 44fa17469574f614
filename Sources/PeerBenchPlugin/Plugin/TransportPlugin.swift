import PeerBenchJSON
import PeerBenchSystem

/// A transport under test: TCP, UDP, QUIC, emulated UWB ranging, or your own.
///
/// One plugin value is made per cell from the matrix's `options` (see
/// `init(options:)`). The runner then
/// 1. calls `startServer` on the server endpoint and waits until it listens,
/// 2. calls `runClient` on the client endpoint, which runs the standard workload
///    (timed connection set-up, `cell.rttProbes` echoed probes, the bulk phase of
///    `cell.payload.count` messages of `cell.payload.size` bytes, teardown) and
///    returns a `TransportMeasurement`,
/// 3. waits for the server to finish, or stops it.
///
/// Rules an implementation must follow:
/// - Do blocking I/O only inside `Endpoint.run` (a dedicated thread inside the
///   endpoint's network namespace), never on the caller's task.
/// - Register every socket with `cell.cancellation` so the runner can unblock it
///   at the cell's deadline.
/// - What the server learns (datagrams received, bytes counted) reaches the client
///   over the wire; the server and client never share memory. The peer may be in
///   another namespace or on another host.
/// - Time with `MonotonicClock` (nanoseconds).
public protocol TransportPlugin: Sendable {
    /// Name, summary, options and the matrix dimensions the plugin uses.
    static var descriptor: PluginDescriptor { get }

    /// Reads and validates the matrix's options for this transport. Read every key
    /// through `options` (unknown keys are rejected after init returns); throw
    /// `InputError` naming the option for a bad value.
    init(options: PluginOptions) throws

    /// Rejects a payload the transport cannot carry (for example a UDP datagram over
    /// 65 507 bytes). Called during validation, before anything runs.
    func check(payload: Payload, path: JSONPath) -> [InputProblem]

    /// Refuses a workload (docs/WORKLOADS.md) the transport cannot run, naming `path`.
    /// The default accepts the plain upload only, so a plugin that knows nothing of
    /// workloads says "unsupported" for the others instead of running the wrong thing.
    func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem]

    /// Binds and listens on `cell.server`, then returns. The returned server serves
    /// one client session in the background.
    func startServer(_ cell: CellContext) async throws -> any TransportServer

    /// Runs the standard workload from `cell.client` against `server` and measures it.
    func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement

    /// Versions of the libraries the plugin uses (`"ngtcp2": "0.12.1"`), for the manifest.
    static func libraryVersions() -> [String: String]

    /// Expected wall time of one cell, for `validate` and the progress ETA; nil lets
    /// the runner estimate from the payload and the link rate.
    func estimatedSeconds(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double?

    /// What this configuration does to a cell's time that the runner's own estimate
    /// cannot know: its share of the link's rate, a straggler wait, an end with its sender.
    func costHints(link: ResolvedLink) -> CostHints

    /// Seconds of a silent link (nothing crosses) after which this configuration gives
    /// up on its peer while the workload runs (TCP_USER_TIMEOUT, a UWB removal timeout);
    /// nil = not within a cell. A scenario cell whose connection dies after the link was
    /// dead at least this long is `ok`, not `failed` (docs/RECORDS.md, "scenario").
    var deadPeerTimeoutSeconds: Double? { get }
}

extension TransportPlugin {
    public func check(payload: Payload, path: JSONPath) -> [InputProblem] { [] }
    public func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
        if workload.isUpload { return [] }
        return [
            InputProblem(
                path: path.description,
                "\(Self.descriptor.name): the \(workload.kindName) workload\(workload.usesPayload ? " \(workload.direction.rawValue)" : "") is unsupported by this transport"
            )
        ]
    }
    public static func libraryVersions() -> [String: String] { [:] }
    public func estimatedSeconds(payload: Payload?, rttProbes: Int, link: ResolvedLink) -> Double? { nil }
    public func costHints(link: ResolvedLink) -> CostHints { CostHints() }
    public var deadPeerTimeoutSeconds: Double? { nil }
}
