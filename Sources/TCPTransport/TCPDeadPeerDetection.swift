import PeerBenchPlugin

// `TCPUserTimeout` itself is in PeerBenchPlugin (tls sets it too).

extension TCPPlugin {
    /// With data in flight only TCP_USER_TIMEOUT ends a connection within a cell.
    public var deadPeerTimeoutSeconds: Double? { options.userTimeout.map { Double($0.milliseconds) / 1_000 } }
}
