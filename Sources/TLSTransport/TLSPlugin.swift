import GnuTLSSupport
public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchStreams
public import PeerBenchSystem

/// TLS 1.3 over TCP with GnuTLS (docs/protocol/tls.md): the TCP plugin's workload
/// inside an encrypted stream, so encrypted QUIC can be compared with encrypted TCP.
/// Authenticates with the bundled test certificates (certs/) or a pre-shared key.
public struct TLSPlugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "tls",
        summary: "TLS 1.3 over kernel TCP (GnuTLS), one connection, length-prefixed messages; handshake timed as connect_ms.",
        options: TLSOptions.descriptors
    )

    public let options: TLSOptions

    public init(options: PluginOptions) throws {
        self.options = try TLSOptions(options)
    }

    public init(_ options: TLSOptions = TLSOptions()) {
        self.options = options
    }

    public func check(payload: Payload, path: JSONPath) -> [InputProblem] {
        guard payload.size > StreamFraming.maxMessageSize else { return [] }
        return [InputProblem(path: path.description, "tls: a message of \(payload.size) bytes exceeds the plugin's limit of 64 MiB")]
    }

    /// Every kind and direction; `reconnect` and `loadedRttProbes` with the upload only.
    public func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
        workload.check(
            transport: "tls", uploadOnly: [("reconnect", options.reconnect != nil), ("loadedRttProbes", options.loadedRttProbes != nil)],
            parallelStreams: true, path: path)
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        try await TLSServer.start(cell, options: options)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        let options = options
        return try await cell.client.run("tls-client") { try TLSClient.run(cell, server: server, options: options) }
    }

    /// With data in flight only TCP_USER_TIMEOUT (`userTimeoutMs`) ends the connection within a cell.
    public var deadPeerTimeoutSeconds: Double? { options.userTimeout.map { Double($0.milliseconds) / 1_000 } }

    /// As tcp's (`CostHints.kernelTCP`): TLS adds little over the same TCP.
    public func costHints(link: ResolvedLink) -> CostHints { .kernelTCP(link: link) }

    public static func libraryVersions() -> [String: String] {
        ["gnutls": GnuTLSLibrary.version]
    }
}
