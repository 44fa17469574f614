/// The radio's duty cycle. `bulk` keeps the environment's channel schedule (AWDL's
/// off-channel slots, which save power); `realtime` stays on the peer-to-peer channel.
public enum PerformanceMode: String, Sendable, Codable, CaseIterable, Hashable {
    /// The environment's schedule, off-channel slots included: the default.
    case bulk
    /// No off-channel slots: the peer-to-peer channel all the time.
    case realtime
}
