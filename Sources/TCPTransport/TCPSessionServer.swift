import PeerBenchCore

/// A `TransportServer` whose one session runs on its own thread (inside the server's
/// namespace, via `Endpoint.run`). `stop()` shuts down every socket the session
/// registered, which unblocks it.
///
/// The UDP plugin has the same type; it is a candidate for PeerBenchCore.
struct TCPSessionServer: TransportServer {
    let address: SocketAddress
    let stopper: CellCancellation
    let task: Task<Void, any Error>

    func finish() async throws { try await task.value }
    func stop() { stopper.cancel() }
}

extension CellContext {
    /// Registers `socket` with the runner's cancellation and, if given, a server's own stopper.
    func track(_ socket: Socket, _ stopper: CellCancellation? = nil) {
        cancellation.register(socket)
        stopper?.register(socket)
    }

    /// Forgets `socket` again before it closes, so a later cancel cannot hit a reused descriptor.
    func untrack(_ socket: Socket, _ stopper: CellCancellation? = nil) {
        cancellation.unregister(socket)
        stopper?.unregister(socket)
    }

    /// Sets receive and send timeouts to the time left until the cell's deadline, so no
    /// blocking call outlives the cell even if nobody cancels it.
    func applyDeadline(to socket: Socket) throws(SystemError) {
        let left = Swift.max(remainingNanos, 1_000_000)
        try socket.setReceiveTimeout(nanoseconds: left)
        try socket.setSendTimeout(nanoseconds: left)
    }
}
