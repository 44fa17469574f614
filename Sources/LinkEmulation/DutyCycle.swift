public import PeerBenchPlugin
import PeerBenchTestbed

/// The performance mode's duty cycle in the emulator [A after Apple's Wi-Fi Aware
/// documentation]: `bulk` keeps the environment's channel schedule (AWDL's off-channel
/// slots, LINK-MODEL.md section 2); `realtime` stays on the peer-to-peer channel, so no
/// packet ever waits for an off-channel slot to end.
extension EmulatedChannel: PerformanceModeAdaptable {
    public var onChannelFraction: Double { schedule.onFraction }

    /// Each of the two frames waits for an availability window: the request half of one
    /// on average, its answer (which just missed the window the request came in) almost
    /// a whole one, so 1.5 windows (24.6 ms: a lone ping-pong over 1 ms each way takes
    /// 26.6 ms, LINK-MODEL.md 1a); each missed window adds one more, m / (1 - m) of them
    /// on average per frame. Off-channel slots are left out: a lone probe seldom meets one.
    public var roundTripWaitSeconds: Double {
        guard let w = schedule.windowNanos else { return 0 }
        let m = min(schedule.windowMissProbability, 0.95)
        return Double(w) / 1e9 * (1.5 + 2 * m / (1 - m))
    }

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
