/// Why the control channel failed. The texts are what `run --link remote` and `serve` print.
public enum ControlChannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The TLS handshake failed because the two sides do not hold the same key (or identity).
    case authenticationFailed
    /// serve refused the connection before the handshake: its handshake slots (for
    /// this address, or in all) are taken. Try again in a few seconds.
    case busy
    /// The handshake, a message or its sending did not complete in time.
    case timedOut
    /// The peer closed the connection (between frames), or `close()` was called here.
    case closed
    /// The peer sent bytes that are not a valid control frame, or a message out of order.
    case protocolError(ControlProtocolError)
    /// Anything else: connecting failed, a TLS error that is not about the key, a system call.
    case failed(String)

    public var description: String {
        switch self {
        case .authenticationFailed: "authentication failed (wrong pre-shared key?)"
        case .busy:
            "control channel: the peer is busy (its handshake slots are taken, perhaps by a stranger's connections); try again in a few seconds"
        case .timedOut: "control channel: timed out"
        case .closed: "control channel: the connection is closed"
        case .protocolError(let e): "\(e)"
        case .failed(let why): "control channel: \(why)"
        }
    }
}
