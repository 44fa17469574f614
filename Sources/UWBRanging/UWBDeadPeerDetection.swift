public import PeerBenchCore

extension UWBPlugin {
    /// A session stops hearing its peer and removes it after `removalTimeoutSeconds`
    /// (Nearby Interaction's `didRemove` with reason `timeout`); the cell still ends
    /// normally, with the removal time in `peerLostAtNanos`.
    public var deadPeerTimeoutSeconds: Double? { options.removalTimeoutSeconds }
}
