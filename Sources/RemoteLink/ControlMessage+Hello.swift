extension ControlMessage.Hello {
    /// This build's HELLO: `RemoteLink.controlProtocolVersions`, the given software
    /// version and plugin names.
    public static func local(softwareVersion: String, plugins: [String]) -> Self {
        Self(protocolVersions: RemoteLink.controlProtocolVersions, softwareVersion: softwareVersion, plugins: plugins)
    }

    /// The version a session with `peer` speaks: the highest both lists contain
    /// (docs/protocol/control.md, Session); nil when they share none.
    public func commonVersion(with peer: Self) -> UInt16? {
        Set(protocolVersions).intersection(peer.protocolVersions).max()
    }

    /// The ERROR (code 1) message, and the text either side prints, when `commonVersion`
    /// is nil: both lists, and the peer's software version so the user knows which to update.
    public func versionMismatch(with peer: Self) -> String {
        func list(_ v: [UInt16]) -> String { v.map(String.init).joined(separator: ", ") }
        return "no common control protocol version: this side (PeerBench \(softwareVersion)) speaks \(list(protocolVersions)), "
            + "the peer (PeerBench \(peer.softwareVersion)) speaks \(list(peer.protocolVersions)); install the same PeerBench version on both hosts"
    }
}
