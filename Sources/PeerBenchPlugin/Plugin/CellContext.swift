public import Logging
public import PeerBenchJSON
public import PeerBenchSystem
import Synchronization

/// Everything a plugin needs to run its side of one cell.
public struct CellContext: Sendable {
    public var cellID: String
    public var repetition: Int
    /// Per-cell seed (derived from the run seed and the cell id); use it for any randomness.
    public var seed: UInt64
    /// The bulk phase; nil for plugins that do not use payloads.
    public var payload: Payload?
    public var rttProbes: Int
    /// What the application sends (matrix key `workloads`); `.upload` unless the matrix
    /// says otherwise. Only a plugin whose `check(workload:path:)` accepted it sees another.
    public var workload: WorkloadSpec = .upload
    /// How the `rttProbes` probes are sent (matrix key `rttMethod`). A plugin that
    /// cannot pipeline runs ping-pong and says so in `TransportMeasurement.rttMethod`.
    public var rttMethod: RTTMethod
    /// Pipelined probes: nanoseconds between probe sends (matrix key `rttProbeIntervalMs`;
    /// 0 = back to back). Pace with `RTTMethod.waitForSend(_:start:spacing:)`.
    public var rttProbeSpacingNanos: UInt64 = 0
    /// The application's time per message at each end (matrix key `appLoop`; `.none`
    /// unless the matrix says otherwise). Both the server and the client see it.
    public var appLoop: AppLoop = .none
    /// Monotonic deadline (nanoseconds, `MonotonicClock`) by which the cell must end.
    public var deadline: UInt64
    public var link: ResolvedLink
    public var client: Endpoint
    public var server: Endpoint
    public var cancellation: CellCancellation
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

/// Lets the runner stop a cell's blocking work: at the deadline it shuts down every
/// registered socket (which wakes blocked calls) and runs registered handlers.
public final class CellCancellation: Sendable {
    private struct State {
        var sockets: [ObjectIdentifier: Socket] = [:]
        var handlers: [@Sendable () -> Void] = []
        var cancelled = false
    }
    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Registers a socket; if the cell is already cancelled it is shut down at once.
    public func register(_ socket: Socket) {
        let already = state.withLock { s in
            if !s.cancelled { s.sockets[ObjectIdentifier(socket)] = socket }
            return s.cancelled
        }
        if already { socket.shutdown() }
    }

    public func unregister(_ socket: Socket) {
        _ = state.withLock { $0.sockets.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    /// Runs `handler` on cancellation (at once if already cancelled).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { s in
            if !s.cancelled { s.handlers.append(handler) }
            return s.cancelled
        }
        if already { handler() }
    }

    public func cancel() {
        let (sockets, handlers) = state.withLock { s -> ([Socket], [@Sendable () -> Void]) in
            if s.cancelled { return ([], []) }
            s.cancelled = true
            defer {
                s.sockets = [:]
                s.handlers = []
            }
            return (Array(s.sockets.values), s.handlers)
        }
        sockets.forEach { $0.shutdown() }
        handlers.forEach { $0() }
    }
}

/// A plugin's own error with a message for the record's `error` field.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
