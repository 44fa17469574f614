/// What to range with: the emulation's `NINearbyPeerConfiguration`.
///
/// Nearby Interaction needs only the peer's token; the emulation adds the knobs a
/// real radio decides for itself (who initiates the rounds, how often, how long a
/// silent peer is kept), each with a default that needs no thought.
public struct NearbyPeerConfiguration: Sendable, Hashable {
    /// Which radio starts each ranging round.
    public enum Role: Sendable, Hashable {
        /// The session with the smaller session identifier initiates (both sides
        /// decide the same from the two tokens, as FiRa's controller election does).
        case automatic
        /// This session polls and measures; it needs the `NearbySession.scene`.
        case initiator
        /// This session answers polls and learns distances from the initiator's reports.
        case responder
    }

    /// The peer's discovery token, received over an out-of-band channel.
    var peerDiscoveryToken: DiscoveryToken
    public var role: Role
    /// Ranging rounds per second (~50 Hz in one field report, 10–30 Hz in others [M]).
    public var updateRateHz: Double
    /// After this long without a distance the peer is removed with reason `.timeout` [A].
    public var removalTimeoutSeconds: Double

    public init(peerToken: DiscoveryToken, role: Role = .automatic, updateRateHz: Double = 20, removalTimeoutSeconds: Double = 2) {
        self.peerDiscoveryToken = peerToken
        self.role = role
        self.updateRateHz = updateRateHz
        self.removalTimeoutSeconds = removalTimeoutSeconds
    }
}
