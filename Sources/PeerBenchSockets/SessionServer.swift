import PeerBenchPlugin
import PeerBenchSystem

/// A `TransportServer` whose one client session runs in the background (usually on a
/// thread of its own inside the server's namespace, via `Endpoint.run`).
///
/// `stop()` cancels `stopper`, which shuts down every socket the session registered
/// with it and so unblocks the session; `finish()` waits for the session and rethrows
/// its error.
public struct SessionServer: TransportServer {
    public let address: SocketAddress
    public let stopper: CellCancellation
    private let task: Task<Void, any Error>

    public init(address: SocketAddress, stopper: CellCancellation, task: Task<Void, any Error>) {
        self.address = address
        self.stopper = stopper
        self.task = task
    }

    public func finish() async throws { try await task.value }
    public func stop() { stopper.cancel() }
}
