import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem

/// The peer's side of a `uwb` cell: serves the token channel once, then answers
/// ranging polls as the responder until the client's session ends (peerEnded, or the
/// client closes the token channel's connection) or the runner stops it; a timeout
/// removal is answered by running again, as an app would.
final class UWBServer: TransportServer, Sendable {
    let address: SocketAddress
    private let task: Task<Void, any Error>
    private let listener: TokenChannelListener
    private let session: NearbySession

    init(_ cell: CellContext, options: UWBOptions) async throws {
        let (listener, session) = try await cell.server.run("uwb-server-setup") {
            // The peer's token identifies a different session from the client's,
            // so it gets its own stream of the cell seed.
            (
                try TokenChannelListener(endpoint: cell.server),
                try NearbySession(
                    deviceClass: options.peer, chip: options.chip, radio: cell.server,
                    seed: cell.seed ^ 0x5045_4552_5345_4544)
            )
        }
        self.listener = listener
        self.session = session
        address = listener.address
        cell.track(session.socket)
        cell.cancellation.onCancel { session.invalidate() }
        let channel = options.tokenChannel.channel(connectionIntervalMs: options.gattConnectionIntervalMs)
        task = Task {
            defer { cell.untrack(session.socket) }
            // One client: the listener closes once it came.
            let connection = try await cell.withSocket(listener.socket) { _ in
                try await cell.server.run("uwb-server-accept") {
                    guard let connection = try listener.accept(deadline: cell.deadline) else {
                        throw TransportError("uwb: no client connected to the token channel before the cell's deadline")
                    }
                    return connection
                }
            }
            try await cell.withSocket(connection) { connection in
                let exchange = try await cell.server.run("uwb-server") {
                    try channel.serve(session.discoveryToken.serialized(), over: connection, deadline: cell.deadline)
                }
                try await Self.respond(cell, session: session, exchange: exchange, connection: connection, options: options)
            }
        }
    }

    /// Ranges as the responder until the client's session ends.
    private static func respond(
        _ cell: CellContext, session: NearbySession, exchange: TokenExchange, connection: Socket,
        options: UWBOptions
    ) async throws {
        let configuration: NearbyPeerConfiguration
        do {
            configuration = NearbyPeerConfiguration(
                peerToken: try exchange.peerToken(), role: .responder,
                updateRateHz: options.updateRateHz,
                removalTimeoutSeconds: options.removalTimeoutSeconds)
            try session.run(configuration)
        } catch {
            session.invalidate()
            throw TransportError("uwb server: \(error)")
        }
        // The client closes the channel when its ranging is over: end then, even if
        // its end frames were lost on the link. Watched only once the session runs:
        // a client that leaves right after the exchange must not invalidate the
        // session before `run`, which would then fail as if configured wrongly.
        let watcher = Task {
            _ = try? await cell.server.run("uwb-server-channel") { connection.waitForClose(deadline: cell.deadline) }
            session.invalidate()
        }
        defer { watcher.cancel() }
        for await event in session.events {
            switch event {
            case .didRemove(_, .timeout):
                // What an app does: run again and wait for the peer to come back. The
                // client decides when the cell ends (its own timeout or invalidation).
                try? session.run(configuration)
            case .didRemove(_, .peerEnded):
                session.invalidate()
            case .didInvalidate(let error):
                throw TransportError("uwb server: \(error)")
            default:
                break
            }
        }
        connection.shutdown()  // wakes the watcher if the session ended first
        await watcher.value
    }

    func finish() async throws { try await task.value }

    func stop() {
        listener.socket.shutdown()
        session.invalidate()
    }
}
