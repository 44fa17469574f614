import Foundation
public import Logging
public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchSystem
import PeerBenchTestbed
import Synchronization

/// One cell's server side in `peerbench serve`: the request checked against the
/// limits, the plugin's server started on a data port that admits only the
/// authenticated client (`Endpoint.allowedPeer`, `dataPorts`), then awaited under the
/// cell's deadline and stopped at it.
public final class ServeCell: Sendable {
    /// Where the server listens (the port goes into SERVER_READY).
    public let address: SocketAddress
    public let hello: JSONObject
    /// The cell's data-plane key, sent to the client in SERVER_READY (`data_key`).
    public let dataKey: [UInt8]
    /// SHA-256 (hex) of the certificate the server presents when it is serve's own
    /// identity (quic, tls), sent in SERVER_READY (`certificate_sha256`); nil otherwise.
    let certificateSHA256: String?
    public let request: RemoteCell.Request
    private let server: any TransportServer
    private let cancellation: CellCancellation
    private let deadline: UInt64
    private let started: UInt64
    /// The server side's CPU time (`cpu_seconds.server` of the client's record).
    private let cpu: CPUAccount
    /// Set by `stop()`: the client went away, so a server that then returns normally
    /// did not finish its session.
    private let clientGone = Mutex(false)

    /// Checks `request` and starts its server on `endpoint`; throws a message for the
    /// client (a refused request, a plugin that could not start).
    public static func start(
        _ request: RemoteCell.Request, registry: PluginRegistry, endpoint: Endpoint, peer: String,
        limits: ServeLimits, identity: ServeIdentity? = nil,
        logger: Logger = Logger(label: "peerbench.serve")
    ) async throws -> ServeCell {
        try check(request, registry: registry, limits: limits)
        guard let seed = request.seedValue else { throw TransportError("cell request: seed \"\(request.seed)\" is not an unsigned 64-bit integer") }
        let (options, pinned) = presenting(identity, in: request, registry: registry)
        let (plugin, _) = try registry.make(request.plugin, options: options, path: JSONPath.root.key("options"))
        // The plugin's own payload check, as `validate` applies it to a matrix: serve
        // must not take a 1 GiB udp message the plugin itself refuses.
        if let payload = request.payload, let problem = plugin.check(payload: payload, path: JSONPath.root.key("payload")).first {
            throw TransportError("\(problem.path ?? "$.payload"): \(problem.message)")
        }
        let workload = try request.workloadSpec()
        if let problem = plugin.check(workload: workload, path: JSONPath.root.key("workload")).first {
            throw TransportError("\(problem.path ?? "$.workload"): \(problem.message)")
        }
        let started = MonotonicClock.now()
        let deadline = started + UInt64(request.timeoutSeconds * 1e9)
        let cancellation = CellCancellation()
        var cellLogger = logger
        cellLogger[metadataKey: "cell"] = "\(request.cellID)#\(request.repetition)"
        var context = CellContext(
            cellID: request.cellID, repetition: request.repetition, seed: seed, payload: request.payload,
            rttProbes: request.rttProbes, deadline: deadline, link: request.link,
            client: Endpoint(address: peer), server: endpoint, cancellation: cancellation, logger: cellLogger,
            rttMethod: request.rttMethod ?? .pingPong)
        context.wifi = request.wifi ?? .default
        context.workload = workload
        if let loop = request.appLoop, max(loop.sendNanos, loop.receiveNanos) > AppLoop.maxNanos {
            throw TransportError("cell request: $.app_loop: at most \(AppLoop.maxNanos / 1_000) µs per message")
        }
        context.appLoop = request.appLoop ?? .none
        context.dataKey = try CellDataKey.random()
        let cell = context
        let cpu = CPUAccount()
        let server = try await withDeadline(seconds: request.timeoutSeconds, onTimeout: { cancellation.cancel() }) {
            try await CPUAccount.$current.withValue(cpu) { try await plugin.startServer(cell) }
        }
        return ServeCell(
            request: request, server: server, cancellation: cancellation, deadline: deadline, started: started,
            dataKey: context.dataKey ?? [], cpu: cpu, certificateSHA256: pinned)
    }

    private init(
        request: RemoteCell.Request, server: any TransportServer, cancellation: CellCancellation, deadline: UInt64, started: UInt64,
        dataKey: [UInt8], cpu: CPUAccount, certificateSHA256: String?
    ) {
        self.dataKey = dataKey
        self.certificateSHA256 = certificateSHA256
        self.cpu = cpu
        self.request = request
        self.server = server
        self.address = server.address
        self.hello = server.hello
        self.cancellation = cancellation
        self.deadline = deadline
        self.started = started
    }

    /// Refuses what this serve does not run: unknown plugins, `exec` without
    /// `--allow-exec`, cells longer or payloads larger than the limits.
    static func check(_ r: RemoteCell.Request, registry: PluginRegistry, limits: ServeLimits) throws {
        guard registry.type(named: r.plugin) != nil else {
            throw TransportError("this serve has no plugin \"\(r.plugin)\" (it has: \(registry.names.joined(separator: ", ")))")
        }
        if r.plugin == "exec" && !limits.allowExec {
            throw TransportError(
                "this serve does not run the exec plugin (it would run a command the client names); start serve with --allow-exec to allow it")
        }
        guard r.timeoutSeconds > 0, r.timeoutSeconds <= limits.maxCellSeconds else {
            throw TransportError(
                "cell timeout \(seconds(r.timeoutSeconds)) s is outside this serve's limit (above 0, at most \(seconds(limits.maxCellSeconds)) s, --max-cell-seconds)"
            )
        }
        if let p = r.payload {
            let (bytes, overflow) = p.count.multipliedReportingOverflow(by: p.size)
            guard p.count >= 0, p.size >= 0, !overflow, bytes <= limits.maxPayloadBytes else {
                throw TransportError(
                    "payload \(p.count) x \(p.size) bytes is above this serve's limit of \(limits.maxPayloadBytes) bytes per cell (--max-payload-bytes)"
                )
            }
        }
        try refuseFileOptions(r, registry: registry)
        guard r.rttProbes >= 0, r.rttProbes <= 1_000_000 else {
            throw TransportError("rtt_probes \(r.rttProbes) is outside 0...1000000")
        }
    }

    /// The request's options with serve's own certificate and key (`ServeIdentity`) for a
    /// plugin that presents one (it declares `certFile` and `keyFile`, and is not using a
    /// pre-shared key instead), and the certificate's digest for SERVER_READY; the
    /// request's options unchanged and nil otherwise. The client cannot name these files
    /// (`refuseFileOptions`): serve fills them in itself.
    static func presenting(_ identity: ServeIdentity?, in r: RemoteCell.Request, registry: PluginRegistry) -> (JSONValue?, String?) {
        guard let identity, let type = registry.type(named: r.plugin) else { return (r.options, nil) }
        let keys = Set(type.descriptor.options.map(\.key))
        var options = r.options?.objectValue ?? JSONObject()
        guard keys.contains("certFile"), keys.contains("keyFile"), options["psk"] == nil || options["psk"] == .null else { return (r.options, nil) }
        options["certFile"] = .string(identity.certFile)
        options["keyFile"] = .string(identity.keyFile)
        return (.object(options), identity.sha256Hex)
    }

    /// serve opens no file a client names (issue 24): every option the plugin declares
    /// as a `path` is refused when the request gives it, by its name and without
    /// looking at the file, so a client cannot make serve read `/dev/zero` or learn
    /// whether a file exists. The plugin's defaults (serve's own files) still apply.
    static func refuseFileOptions(_ r: RemoteCell.Request, registry: PluginRegistry) throws {
        guard let options = r.options?.objectValue, let type = registry.type(named: r.plugin) else { return }
        for d in type.descriptor.options where d.type == "path" {
            guard let v = options[d.key], v != .null else { continue }
            throw TransportError(
                "this serve does not open files a client names: option \"\(d.key)\" ($.options.\(d.key)) is refused over a remote link; remove it from the \(r.plugin) transport's options (serve uses its own files)"
            )
        }
    }

    /// Waits for the server's session to end, at most until the cell's deadline (then
    /// it is stopped, with one grace period to return), and says how it ended.
    public func result() async -> RemoteCell.Result {
        let left = Double(deadline > MonotonicClock.now() ? deadline - MonotonicClock.now() : 0) / 1e9
        let (server, cancellation) = (self.server, self.cancellation)
        let status: String
        var error: String?
        do {
            try await withDeadline(
                seconds: max(left, 0.001),
                onTimeout: {
                    cancellation.cancel()
                    server.stop()
                }
            ) {
                try await server.finish()
            }
            // A server stopped early returns normally too: that is not a session that ended.
            if clientGone.withLock({ $0 }) {
                status = "failed"
                error = "the client went away during the cell (its control connection closed); the server was stopped"
            } else if cancellation.isCancelled || MonotonicClock.now() >= deadline {
                status = "timeout"
                error = "the server was still running at the cell's deadline (\(seconds(request.timeoutSeconds)) s); it was stopped"
            } else {
                status = "ok"
            }
        } catch is DeadlineExceeded {
            status = "timeout"
            error = "the server was still running at the cell's deadline (\(seconds(request.timeoutSeconds)) s)"
        } catch let e {
            let late = cancellation.isCancelled || MonotonicClock.now() >= deadline
            status = late && !clientGone.withLock({ $0 }) ? "timeout" : "failed"
            error = "\(e)"
        }
        server.stop()
        return RemoteCell.Result(
            status: status, error: error, seconds: Double(MonotonicClock.elapsed(since: started)) / 1e9,
            cpuSeconds: await cpu.settledSeconds())
    }

    /// Stops the server at once (the client went away); `result()` then returns soon.
    public func stop() {
        clientGone.withLock { $0 = true }
        cancellation.cancel()
        server.stop()
    }
}
