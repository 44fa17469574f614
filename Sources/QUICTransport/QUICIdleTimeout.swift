import PeerBenchPlugin

extension QUICPlugin {
    /// A QUIC connection notices a dead peer by its idle timeout: ngtcp2 closes it once
    /// nothing has come from the peer for `idleTimeoutSeconds` (at least 3 PTOs), and the
    /// client fails with that reason at that moment (docs/PLUGINS.md, "Dead-peer
    /// detection"). Only a timeout the matrix gives counts: the 30 s default is the
    /// ordinary safety net, and reading it only when given keeps existing cell ids.
    public var deadPeerTimeoutSeconds: Double? { config.configuredIdleTimeoutSeconds }
}
