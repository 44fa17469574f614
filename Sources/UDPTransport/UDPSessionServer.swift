import PeerBenchCore

/// A `TransportServer` whose one session runs on its own thread (inside the server's
/// namespace, via `Endpoint.run`). `stop()` shuts down the session's socket.
///
/// The TCP plugin has the same type; it is a candidate for PeerBenchCore.
struct UDPSessionServer: TransportServer {
    let address: SocketAddress
    let stopper: CellCancellation
    let task: Task<Void, any Error>

    func finish() async throws { try await task.value }
    func stop() { stopper.cancel() }
}
