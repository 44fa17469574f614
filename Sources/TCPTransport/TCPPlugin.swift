public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchStreams
public import PeerBenchSystem

/// TCP over the kernel's stack: length-prefixed frames on one connection
/// (docs/protocol/tcp.md), with Nagle and keepalive options as the field study set them.
public struct TCPPlugin: TransportPlugin {
    public static let descriptor = PluginDescriptor(
        name: "tcp",
        summary: "Kernel TCP, one connection, length-prefixed messages; TCP_INFO under extra.tcp.",
        options: TCPOptions.descriptors
    )

    public let options: TCPOptions

    public init(options: PluginOptions) throws {
        self.options = try TCPOptions(options)
    }

    public init(_ options: TCPOptions = TCPOptions()) {
        self.options = options
    }

    public func check(payload: Payload, path: JSONPath) -> [InputProblem] {
        guard payload.size > StreamFraming.maxMessageSize else { return [] }
        return [
            InputProblem(
                path: path.description,
                "tcp: a message of \(payload.size) bytes exceeds the plugin's limit of \(StreamFraming.maxMessageSize) bytes (64 MiB)")
        ]
    }

    /// Every kind and direction; `reconnect` and `loadedRttProbes` with the upload only.
    public func check(workload: WorkloadSpec, path: JSONPath) -> [InputProblem] {
        workload.check(
            transport: "tcp", uploadOnly: [("reconnect", options.reconnect != nil), ("loadedRttProbes", options.loadedRttProbes != nil)],
            parallelStreams: true, path: path)
    }

    public func startServer(_ cell: CellContext) async throws -> any TransportServer {
        try await TCPServer.start(cell, options: options)
    }

    public func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        let options = options
        return try await cell.client.run("tcp-client") { try TCPClient.run(cell, server: server, options: options) }
    }
}
