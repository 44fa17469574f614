/// The ground truth the emulated radio measures: where the peer is and what is
/// around. Change it while a session runs (`NearbySession.scene`) to move the peer.
public struct RangingScene: Sendable, Hashable {
    /// True distance between the devices, metres.
    public var distanceMeters: Double
    /// Azimuth of the peer relative to the back of this phone, degrees: 0 = straight
    /// out of the back camera, positive = to the right, ±180 = behind the user.
    public var bearingDegrees: Double
    public var environment: EnvironmentProfile

    public init(distanceMeters: Double, bearingDegrees: Double = 0, environment: EnvironmentProfile = .freeField) {
        self.distanceMeters = distanceMeters
        self.bearingDegrees = bearingDegrees
        self.environment = environment
    }
}
