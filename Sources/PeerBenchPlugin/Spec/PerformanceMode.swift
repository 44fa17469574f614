/// The radio's duty cycle. `bulk` keeps the environment's channel schedule (AWDL's
/// off-channel slots, which save power); `realtime` stays on the peer-to-peer channel.
public enum PerformanceMode: String, Sendable, Codable, CaseIterable, Hashable {
    case bulk
    case realtime
}
