import PeerBenchPlugin

extension UWBPlugin {
    /// A session stops hearing its peer and removes it after `removalTimeoutSeconds`
    /// (Nearby Interaction's `didRemove` with reason `timeout`); the cell still ends
    /// normally, with the removal time in `peerLostAtNanos` and the reason in
    /// `extra.uwb.removal_reason`.
    public var deadPeerTimeoutSeconds: Double? { options.removalTimeoutSeconds }
}
