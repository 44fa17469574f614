public import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Synchronization

/// The plugin's part of one cell — server, then client, under the cell's deadline —
/// shared by the in-process executor and the worker process, so both isolation
/// modes measure exactly the same way.
public struct PluginSession: Sendable {
    /// How the plugin part ended.
    public enum Outcome: Sendable {
        case measured(TransportMeasurement)
        /// The transport failed: its plugin threw (a connection that died, a refused handshake).
        case failed(String)
        case timedOut(String)
        /// The harness failed, not the transport: the worker process died (any signal),
        /// the link or the competing flow could not be set up, the peer could not start
        /// the server. Recorded `failed` whatever the scenario predicts (docs/RECORDS.md).
        case harnessFailed(String)

        /// Whether the transport ended the cell itself (measured, or its plugin failed),
        /// not the harness or a deadline: only such an end can be what a scenario predicts.
        var isTransportsOwn: Bool {
            switch self {
            case .measured, .failed: true
            case .timedOut, .harnessFailed: false
            }
        }
    }

    public var registry: PluginRegistry
    public var transport: TransportSpec
    public var cell: CellContextSeed
    /// Seconds the plugin part may take (the cell's timeout less the link set-up).
    public var timeoutSeconds: Double
    /// The cell's timeout as the matrix states it, for messages.
    public var cellTimeoutSeconds: Double
    public var logger: Logger

    public init(
        registry: PluginRegistry, transport: TransportSpec, cell: CellContextSeed, timeoutSeconds: Double,
        cellTimeoutSeconds: Double? = nil, logger: Logger
    ) {
        self.registry = registry
        self.transport = transport
        self.cell = cell
        self.timeoutSeconds = timeoutSeconds
        self.cellTimeoutSeconds = cellTimeoutSeconds ?? timeoutSeconds
        self.logger = logger
    }

    /// Runs server and client on `endpoints` — or, with `source` `.started`, the client
    /// only, against a server started elsewhere (on the peer host) whose end the
    /// caller awaits. At the deadline (or when `stopper` fires) the cell's sockets are
    /// shut; never throws.
    public func run(
        client: Endpoint, server: Endpoint, link: ResolvedLink, source: ServerSource = .plugin,
        stopper: CellStopper? = nil
    ) async -> Outcome {
        let cancellation = CellCancellation()
        let serverBox = ServerBox()
        stopper?.arm {
            cancellation.cancel()
            serverBox.stop()
        }
        defer { stopper?.disarm() }
        let deadline = MonotonicClock.now() + UInt64(timeoutSeconds * 1e9)
        do {
            let m = try await withDeadline(
                seconds: timeoutSeconds,
                onTimeout: {
                    cancellation.cancel()
                    serverBox.stop()
                }
            ) { [self] in
                let (plugin, context) = try makeCell(client: client, server: server, link: link, deadline: deadline, cancellation: cancellation)
                return try await measure(plugin, context, source: source, serverBox: serverBox)
            }
            serverBox.stop()
            return .measured(m)
        } catch is DeadlineExceeded {
            serverBox.stop()
            return .timedOut("cell did not finish within \(JSONValue.format(cellTimeoutSeconds)) s")
        } catch {
            serverBox.stop()
            // A plugin that watches the deadline itself may throw a moment before the
            // timer above fires: any error once the deadline has passed is a timeout.
            return cancellation.isCancelled || MonotonicClock.now() >= deadline
                ? .timedOut("cell did not finish within \(JSONValue.format(cellTimeoutSeconds)) s (\(error))")
                : .failed("\(error)")
        }
    }

    /// The transport's plugin and the cell as both of its sides see it.
    func makeCell(
        client: Endpoint, server: Endpoint, link: ResolvedLink, deadline: UInt64,
        cancellation: CellCancellation
    ) throws -> (any TransportPlugin, CellContext) {
        let (plugin, _) = try registry.make(
            transport.plugin, options: transport.options,
            path: JSONPath.root.key("transports").index(transport.index))
        var cellLogger = logger
        cellLogger[metadataKey: "cell"] = "\(cell.cellID)#\(cell.repetition)"
        var context = CellContext(
            cellID: cell.cellID, repetition: cell.repetition, seed: cell.seed, payload: cell.payload,
            rttProbes: cell.rttProbes, deadline: deadline, link: link, client: client,
            server: server, cancellation: cancellation, logger: cellLogger, rttMethod: cell.rttMethod)
        context.rttProbeSpacingNanos = cell.rttProbeSpacingNanos
        context.appLoop = cell.appLoop
        context.workload = cell.workload
        context.wifi = transport.effectiveWifi
        return (plugin, context)
    }

    /// Starts the server (or takes the one started elsewhere), runs the client against
    /// it and waits for the server's end. Each side's threads are charged to its own
    /// account (`cpu_seconds`).
    func measure(
        _ plugin: any TransportPlugin, _ context: CellContext, source: ServerSource,
        serverBox: ServerBox
    ) async throws -> TransportMeasurement {
        let (serverCPU, clientCPU) = (CPUAccount(), CPUAccount())
        let srv: any TransportServer
        switch source {
        case .plugin: srv = try await CPUAccount.$current.withValue(serverCPU) { try await plugin.startServer(context) }
        case .started(let started): srv = started
        }
        serverBox.set(srv)
        var measurement: TransportMeasurement
        do {
            var clientContext = context
            clientContext.serverHello = srv.hello
            clientContext.dataKey = CellDataKey.from(hello: srv.hello)
            clientContext.certificatePin = CertificatePin.from(hello: srv.hello)
            measurement = try await CPUAccount.$current.withValue(clientCPU) {
                try await plugin.runClient(clientContext, server: srv.address)
            }
        } catch {
            srv.stop()
            try? await srv.finish()
            throw error
        }
        try await srv.finish()
        // A server elsewhere (serve) reports its own; the runner adds it. A plugin
        // whose work is not its threads' (exec) states its own (null) figures.
        let local = if case .plugin = source { true } else { false }
        if measurement.cpuSeconds == nil {
            measurement.cpuSeconds = EndPair(
                client: await clientCPU.settledSeconds(), server: local ? await serverCPU.settledSeconds() : nil)
        }
        return measurement
    }
}

/// Holds the running server so the deadline handler can stop it.
final class ServerBox: Sendable {
    private let state = Mutex<(server: (any TransportServer)?, stopped: Bool)>((nil, false))

    func set(_ server: any TransportServer) {
        let stopNow = state.withLock { s in
            s.server = server
            return s.stopped
        }
        if stopNow { server.stop() }
    }

    func stop() {
        let server = state.withLock { s in
            s.stopped = true
            return s.server
        }
        server?.stop()
    }
}
