import PeerBenchPlugin
import PeerBenchSystem

/// One connection of a resumable stream client as the transport set it up (tcp:
/// connected; tls: connected and handshaken), before any frame of the workload.
public struct StreamConnection {
    public let workload: StreamWorkloadClient
    /// The TCP socket under it (TCP_INFO, the congestion controller).
    public let socket: Socket
    /// When the set-up ended (`ReconnectEvent.connectedAtNanos`).
    public let connectedAt: UInt64
    /// Closes what the transport opened and forgets it in the cell's cancellation.
    public let close: () -> Void

    public init(workload: StreamWorkloadClient, socket: Socket, connectedAt: UInt64, close: @escaping () -> Void) {
        self.workload = workload
        self.socket = socket
        self.connectedAt = connectedAt
        self.close = close
    }
}
