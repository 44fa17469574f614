/// The peer as the session currently sees it: the emulation's `NINearbyObject`.
public struct NearbyObject: Sendable, Hashable {
    /// Why a session stopped tracking a peer (`NINearbyObject.RemovalReason`).
    public enum RemovalReason: String, Sendable, Hashable {
        /// No measurement for too long: the peer is out of reach or silent. Run the
        /// session again with the same configuration to resume when it comes back.
        case timeout
        /// The peer invalidated its session; it will not come back with this token.
        case peerEnded
    }

    /// The token of the peer this object stands for.
    public var discoveryToken: DiscoveryToken
    /// Distance to the peer, metres; nil when this round gave none.
    public var distance: Float?
    /// Unit vector towards the peer in this phone's frame (x right, y up, −z out of
    /// the back), nil outside the field of view, for a watch, or on a dropout.
    public var direction: SIMD3<Float>?
    /// When the measurement was made (`MonotonicClock`, nanoseconds).
    public var timestamp: UInt64
    /// The ranging round the measurement belongs to (tests use it to line runs up).
    var round: UInt32?

    public init(discoveryToken: DiscoveryToken, distance: Float?, direction: SIMD3<Float>?, timestamp: UInt64) {
        self.discoveryToken = discoveryToken
        self.distance = distance
        self.direction = direction
        self.timestamp = timestamp
    }

    /// Azimuth of the direction, radians, positive to the right; nil without a direction.
    public var horizontalAngle: Float? {
        direction.map { Float(atan2(Double($0.x), Double(-$0.z))) }
    }
}

#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif
