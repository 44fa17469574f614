/// One ranging update of an emulated Nearby Interaction session.
public struct RangingUpdateSample: Sendable, Equatable, Codable {
    /// Nanoseconds since the session started running.
    public var tNanos: UInt64
    /// Reported distance, metres; nil when the update carried none (peer out of reach, suspended).
    public var distanceM: Double?
    /// Reported minus true distance, metres; nil without a distance.
    public var errorM: Double?
    /// Whether the update carried a direction.
    public var directionAvailable: Bool

    public init(tNanos: UInt64, distanceM: Double?, errorM: Double?, directionAvailable: Bool) {
        self.tNanos = tNanos
        self.distanceM = distanceM
        self.errorM = errorM
        self.directionAvailable = directionAvailable
    }

    enum CodingKeys: String, CodingKey {
        case tNanos = "t_ns", distanceM = "distance_m", errorM = "error_m", directionAvailable = "direction_available"
    }
}
