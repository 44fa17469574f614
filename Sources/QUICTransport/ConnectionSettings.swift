import CNgtcp2

/// The plugin's defaults, in one place: the option descriptors, the option reader
/// and `ConnectionSettings` all take them from here.
enum QUICDefaults {
    static let streams = StreamMode.single
    static let congestionControl = CongestionControl.cubic
    static let maxStreamWindow: UInt64 = 16 << 20
    static let maxWindow: UInt64 = 24 << 20
    /// Long like TCP's SYN retries, so a fade at set-up does not fail QUIC where TCP would wait.
    static let handshakeTimeoutSeconds = 30.0
    static let idleTimeoutSeconds = 30.0
}

/// Transport settings of one connection, from the plugin's options.
struct ConnectionSettings: Sendable {
    var congestionControl = QUICDefaults.congestionControl
    var maxStreamWindow = QUICDefaults.maxStreamWindow
    var maxWindow = QUICDefaults.maxWindow
    var handshakeTimeoutNanos = UInt64(QUICDefaults.handshakeTimeoutSeconds * 1e9)
    var idleTimeoutNanos = UInt64(QUICDefaults.idleTimeoutSeconds * 1e9)
    /// Largest UDP payload we send; nil = ngtcp2's default with path MTU discovery.
    var maxUDPPayload: Int?
    /// Streams the peer may open at once (the server allows the control stream and the bulk streams).
    var maxUniStreams: UInt64 = 0
    var maxBidiStreams: UInt64 = 0
    /// ngtcp2's own debug log on stderr.
    var debugLog = false
}
