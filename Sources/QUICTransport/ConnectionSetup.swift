/// How far the client's current connection has got in its set-up (`QUICClient.handshake`):
/// the handshake, the control stream, HELLO and the 0-RTT data. Every connection the
/// client makes (a reconnect's too) starts from a fresh one.
struct ConnectionSetup {
    /// When the connection's handshake started.
    var startedAt: UInt64 = 0
    var handshakeDone = false
    /// The control stream (-1 = not open yet) and the parser of what the server sends on it.
    var controlStream: Int64 = -1
    var controlParser = FrameParser(acceptsSeries: true)
    /// HELLO (RESUME on a re-made connection) is queued on the control stream.
    var helloQueued = false
    /// This connection queued HELLO and a PING as 0-RTT data (sent as such only when
    /// the ticket allows early data).
    var earlyDataAttempted = false
    /// The server refused the 0-RTT data: HELLO and the PING were sent again after the handshake.
    var earlyDataRejected = false
}
