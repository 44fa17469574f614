import CNgtcp2
import Foundation
import GnuTLSSupport
public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchSystem
import PeerBenchWorkloads

/// QUIC (RFC 9000) on ngtcp2 0.12 with GnuTLS, TLS 1.3 only: plugin `quic`.
///
/// The workload runs over the application protocol in docs/protocol/quic.md
/// (ALPN `peerbench-quic/2`): RTT probes on a control stream, the bulk phase on
/// further bidirectional streams, and the server's report of what arrived on the control
/// stream, so the delivery figures come over the wire.
public struct QUICPlugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "quic",
        summary: "QUIC on ngtcp2 + GnuTLS (TLS 1.3), probes on a control stream, bulk on further streams",
        options: [
            OptionDescriptor(
                "streams", type: "single|perMessage", default: QUICDefaults.streams.rawValue,
                help:
                    "One stream for all bulk messages, or one stream per message (the upload's; a bulk workload's streams N runs N flow streams, with single only)."
            ),
            OptionDescriptor(
                "congestionControl", type: "cubic|reno|bbr|bbr2", default: QUICDefaults.congestionControl.rawValue,
                help: "ngtcp2's congestion controller."),
            OptionDescriptor(
                "maxStreamWindow", type: "bytes", default: "\(QUICDefaults.maxStreamWindow)",
                help: "Stream flow-control window (initial and auto-tuning maximum)."),
            OptionDescriptor(
                "maxWindow", type: "bytes", default: "\(QUICDefaults.maxWindow)",
                help: "Connection flow-control window (initial and auto-tuning maximum)."),
            OptionDescriptor(
                "handshakeTimeoutSeconds", type: "number", default: "\(Int(QUICDefaults.handshakeTimeoutSeconds))",
                help:
                    "Give up on a handshake after this long (the cell deadline also bounds it). Long like TCP's SYN retries, so a fade at set-up does not fail QUIC where TCP would wait."
            ),
            OptionDescriptor(
                "idleTimeoutSeconds", type: "number", default: "\(Int(QUICDefaults.idleTimeoutSeconds))",
                help: "Close a connection silent for this long (max_idle_timeout); when given, also the dead-peer timeout of scenario cells."),
            OptionDescriptor(
                "caFile", type: "path", default: "certs/ca.pem", help: "CA that must have issued the peer's certificate (bundled test CA by default)."
            ),
            OptionDescriptor("certFile", type: "path", default: "certs/server.pem", help: "Server certificate."),
            OptionDescriptor("keyFile", type: "path", default: "certs/server-key.pem", help: "Server private key."),
            OptionDescriptor("clientCertFile", type: "path", default: "certs/client.pem", help: "Client certificate for mutualTLS."),
            OptionDescriptor("clientKeyFile", type: "path", default: "certs/client-key.pem", help: "Client private key for mutualTLS."),
            OptionDescriptor("serverName", type: "string", default: "the server's address", help: "Name the server certificate must cover."),
            OptionDescriptor("mutualTLS", type: "bool", default: "false", help: "The server requires and verifies a client certificate."),
            OptionDescriptor(
                "resumption", type: "bool", default: "false",
                help: "TLS session resumption: a priming connection fetches a session ticket, the measured connection resumes with it."),
            OptionDescriptor(
                "zeroRTT", type: "bool", default: "false",
                help: "With resumption: the measured connection sends HELLO and a first probe as 0-RTT early data (extra.quic.first_echo_ms)."),
            OptionDescriptor(
                ReconnectPolicy.key, type: "bool|object", default: "off",
                help:
                    "Needs idleTimeoutSeconds: when the idle timeout ends the connection in the bulk phase, make a new one (resumed with resumption, 0-RTT with zeroRTT) with the backoff below until the cell's deadline, RESUME and send on from the server's count; true = the defaults."
            ),
        ] + ReconnectPolicy.descriptors.dropFirst() + LoadedRttProbes.descriptors + MigrationPolicy.descriptors
    )

    let config: QUICConfiguration

    /// Reads the options. Certificate options default to the files in the bundled
    /// `certs/` directory (see `BundledCertificates`); paths given in the matrix are
    /// used as written (relative ones from the working directory).
    public init(options: PluginOptions) throws {
        let streams = try options.choice("streams", default: QUICDefaults.streams)
        let cc = try options.choice("congestionControl", default: QUICDefaults.congestionControl)
        let maxStreamWindow = try options.int("maxStreamWindow", default: Int(QUICDefaults.maxStreamWindow), range: 65_536...(1 << 30))
        let maxWindow = try options.int("maxWindow", default: Int(QUICDefaults.maxWindow), range: 65_536...(1 << 31))
        let handshake =
            try options.double("handshakeTimeoutSeconds", default: QUICDefaults.handshakeTimeoutSeconds, range: 0.05...600)
            ?? QUICDefaults.handshakeTimeoutSeconds
        let idle =
            try options.double("idleTimeoutSeconds", default: QUICDefaults.idleTimeoutSeconds, range: 0.1...3600)
            ?? QUICDefaults.idleTimeoutSeconds
        let resumption = try options.bool("resumption", default: false)
        let zeroRTT = try options.bool("zeroRTT", default: false)
        if zeroRTT && !resumption {
            throw InputError(
                path: options.path.key("zeroRTT").description,
                "0-RTT needs a resumed session: set \"resumption\": true as well")
        }
        let loadedRttProbes = try LoadedRttProbes.read(options)
        let reconnect = try ReconnectPolicy.read(
            options, detectedBy: options.has("idleTimeoutSeconds"), withLoadedRttProbes: loadedRttProbes != nil,
            missing:
                "idleTimeoutSeconds: QUIC notices a vanished peer only by its idle timeout, and the 30 s default is longer than most cells, so without it the connection stalls through the outage and no reconnect would ever start"
        )
        let certs = BundledCertificates.directory()
        func path(_ key: String, _ file: String) throws -> String {
            let bundled = certs.map { "\($0)/\(file)" }
            guard let p = try options.string(key, default: bundled) else {
                throw InputError(
                    path: options.path.key(key).description,
                    "no bundled certs/ directory found (set \(BundledCertificates.environmentVariable) or give \(key))")
            }
            return p
        }
        config = QUICConfiguration(
            streams: streams,
            connection: ConnectionSettings(
                congestionControl: cc, maxStreamWindow: UInt64(maxStreamWindow), maxWindow: UInt64(maxWindow),
                handshakeTimeoutNanos: UInt64(handshake * 1e9), idleTimeoutNanos: UInt64(idle * 1e9),
                debugLog: ProcessInfo.processInfo.environment["PEERBENCH_QUIC_DEBUG"] != nil),
            caFile: try path("caFile", "ca.pem"),
            certFile: try path("certFile", "server.pem"),
            keyFile: try path("keyFile", "server-key.pem"),
            clientCertFile: try path("clientCertFile", "client.pem"),
            clientKeyFile: try path("clientKeyFile", "client-key.pem"),
            serverName: try options.string("serverName", default: nil),
            mutualTLS: try options.bool("mutualTLS", default: false),
            loadedRttProbes: loadedRttProbes,
            configuredIdleTimeoutSeconds: options.has("idleTimeoutSeconds") ? idle : nil,
            resumption: resumption, zeroRTT: zeroRTT, reconnect: reconnect, migrate: try MigrationPolicy.read(options))
    }

    /// The ngtcp2 and GnuTLS versions linked at run time, for the run's manifest.
    public static func libraryVersions() -> [String: String] {
        var v: [String: String] = [:]
        if let info = ngtcp2_version(0), let s = info.pointee.version_str { v["ngtcp2"] = String(cString: s) }
        v["gnutls"] = GnuTLSLibrary.version
        return v
    }

    /// For tests and tools that build a configuration directly.
    init(config: QUICConfiguration) { self.config = config }

    public func check(payload: Payload, path: JSONPath) -> [InputProblem] {
        if payload.size > Int(UInt32.max) {
            return [InputProblem(path: path.key("size").description, "QUIC messages are framed with a 32-bit length; at most \(UInt32.max) bytes")]
        }
        return []
    }

    /// Every kind runs (docs/protocol/quic.md, section 4c); `reconnect` and
    /// `loadedRttProbes` assume the upload's bulk phase, so another workload is refused with them.
    /// Parallel `streams` are streams of the one connection, each a flow of its own, so the
    /// `streams` option's `perMessage` (a stream per message) is refused with them.
    public func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
        var problems = workload.check(
            transport: Self.descriptor.name,
            uploadOnly: [
                (ReconnectPolicy.key, config.reconnect != nil),
                ("loadedRttProbes", config.loadedRttProbes != nil),
            ],
            parallelStreams: true, path: path)
        if workload.streams > 1, config.streams == .perMessage {
            problems.append(
                InputProblem(
                    path: path.key("streams").description,
                    "quic: \(workload.streams) parallel streams send each flow's messages on one stream of its own; option \"streams\": \"perMessage\" (a stream per message) is unsupported with them (use \"single\", the default)"
                ))
        }
        return problems
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        let config = self.config
        var settings = config
        settings.connection.maxUDPPayload = cell.link.mtu.map { Self.udpPayload(mtu: $0, host: cell.server.address) }
        if config.reconnect != nil {
            let now = MonotonicClock.now()
            let cellMs = (cell.deadline > now ? cell.deadline - now : 0) / 1_000_000 + 1_000
            settings.antiReplayWindowMilliseconds = UInt32(clamping: max(10_000, cellMs))
        }
        let loop = try await cell.server.run("quic-server-bind") { [settings] in
            try QUICServerLoop(
                server: cell.server, config: settings, token: CellToken(cell: cell), logger: cell.logger,
                serviceClass: cell.wifi.serviceClass, appLoop: cell.appLoop)
        }
        cell.cancellation.onCancel { loop.stop() }
        let task = Task { try await cell.server.run("quic-server") { try loop.run() } }
        return QUICServerHandle(address: loop.address, loop: loop, task: task)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        var settings = config
        settings.connection.maxUDPPayload = cell.link.mtu.map { Self.udpPayload(mtu: $0, host: server.host) }
        settings.certificatePin = cell.certificatePin
        return try await cell.client.run("quic-client") { [settings] in
            // resumption: a priming connection (its own socket) fills the store first.
            let store = settings.resumption ? QUICResumptionStore() : nil
            var primingNanos: UInt64?
            if let store {
                let primer = try QUICClient(
                    config: settings, server: server, token: CellToken(cell: cell), deadline: cell.deadline,
                    cancellation: cell.cancellation, serviceClass: cell.wifi.serviceClass, store: store)
                primingNanos = try primer.prime()
            }
            let client = try QUICClient(
                config: settings, server: server, token: CellToken(cell: cell), deadline: cell.deadline,
                cancellation: cell.cancellation, serviceClass: cell.wifi.serviceClass, store: store)
            client.resumption.primingNanos = primingNanos
            client.appLoop = cell.appLoop
            return try client.run(
                payload: cell.payload, probes: cell.rttProbes, seed: cell.seed, method: cell.rttMethod,
                probeSpacing: cell.rttProbeSpacingNanos, askSpan: cell.serverHello[QUICServerHandle.reportSpanKey]?.boolValue == true,
                workload: cell.workload)
        }
    }

    /// The largest UDP payload that fits the link's MTU without IP fragmentation.
    static func udpPayload(mtu: Int, host: String) -> Int {
        max(1200, mtu - (host.contains(":") ? 48 : 28))
    }
}

/// The running server of one cell.
final class QUICServerHandle: TransportServer, Sendable {
    let address: SocketAddress
    private let loop: QUICServerLoop
    private let task: Task<Void, any Error>

    init(address: SocketAddress, loop: QUICServerLoop, task: Task<Void, any Error>) {
        self.address = address
        self.loop = loop
        self.task = task
    }

    /// Tells the client this server answers a DONE that asks for the receiver's span
    /// (docs/protocol/quic.md): a client only asks a server that says so, because a
    /// server from before the span refuses the longer DONE.
    var hello: JSONObject { JSONObject([QUICServerHandle.reportSpanKey: .bool(true)]) }
    static let reportSpanKey = "report_span"

    func finish() async throws { try await task.value }
    func stop() { loop.stop() }
}
