import PeerBenchPlugin

/// The server side of cells run on another host (`peerbench serve`), reached through
/// the testbed. The runner starts each cell's server here instead of in the plugin,
/// hands its address and hello to the client (in process or in the worker), and
/// waits for the result through `TransportServer.finish`, so every plugin runs
/// unchanged over a real link.
public protocol RemoteServerHost: Sendable {
    /// Starts `transport`'s server for `cell` on the peer and returns once it listens.
    /// The peer enforces `timeoutSeconds` itself. `finish()` of the returned server
    /// waits for the peer's result and throws its error; `stop()` gives up waiting.
    func startServer(
        transport: TransportSpec, cell: CellContextSeed, link: ResolvedLink,
        timeoutSeconds: Double
    ) async throws -> any TransportServer
}
