public import PeerBenchPlugin

/// The performance mode's duty cycle in the emulator [A after Apple's Wi-Fi Aware
/// documentation]: `bulk` keeps the environment's channel schedule (AWDL's off-channel
/// slots, LINK-MODEL.md section 2); `realtime` stays on the peer-to-peer channel, so no
/// packet ever waits for an off-channel slot to end.
extension EmulatedChannel: PerformanceModeAdaptable {
    public var onChannelFraction: Double { schedule.onFraction }

    public func adapted(to mode: PerformanceMode) -> (channel: any Sendable, rateFactor: Double) {
        switch mode {
        case .bulk:
            return (self, 1)
        case .realtime:
            var c = self
            c.schedule = .realtime
            return (c, ChannelSchedule.realtime.onFraction / schedule.onFraction)
        }
    }
}
