import PeerBenchSystem

/// One connection re-made during a cell (`reconnect`): the client's instants on its
/// monotonic clock (`MonotonicClock`, nanoseconds), for the record's `scenario`
/// (docs/RECORDS.md, "scenario": `reconnects`, `reconnect_ms`, `resent_bytes`).
public struct ReconnectEvent: Sendable, Equatable, Codable {
    /// When the client saw its connection fail: the bulk phase's send or receive
    /// returned the error (TCP_USER_TIMEOUT or keepalive's ETIMEDOUT, EPIPE, ECONNRESET).
    public var lostAtNanos: UInt64
    /// When the new connection was set up: connect returned (tls: and the handshake ended).
    public var connectedAtNanos: UInt64
    /// When the first byte on the new connection was delivered to the client: the
    /// server's RESUMED was read, so the transfer carries on from this instant.
    public var resumedAtNanos: UInt64
    /// Connection attempts it took, the successful one included.
    public var attempts: Int
    /// Payload bytes sent again: messages the client had handed to the lost connection
    /// that the server never received whole, times the message size.
    public var resentBytes: Int

    public init(lostAtNanos: UInt64, connectedAtNanos: UInt64, resumedAtNanos: UInt64, attempts: Int, resentBytes: Int) {
        self.lostAtNanos = lostAtNanos
        self.connectedAtNanos = connectedAtNanos
        self.resumedAtNanos = resumedAtNanos
        self.attempts = attempts
        self.resentBytes = resentBytes
    }

    enum CodingKeys: String, CodingKey {
        case lostAtNanos = "lost_at_ns", connectedAtNanos = "connected_at_ns", resumedAtNanos = "resumed_at_ns", attempts
        case resentBytes = "resent_bytes"
    }
}
