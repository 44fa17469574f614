import PeerBenchPlugin
import PeerBenchSystem

extension ControlChannel {
    /// The control channel's round-trip time in milliseconds: the median of `probes`
    /// PING/PONG exchanges (the peer's `receive` answers them). For `link.control_rtt_ms`,
    /// measured just before each cell. Call it while no other thread receives on this
    /// channel (the PONGs would go to that thread).
    /// - Throws: `ControlChannelError` (`.timedOut` when a PONG takes longer than
    ///   `timeoutSeconds`), `.protocolError(.unexpectedMessage)` when the peer sends
    ///   anything but the PONG.
    public func measureRTT(probes: Int = 3, timeoutSeconds: Double = 5) throws -> Double {
        precondition(probes > 0, "measureRTT needs at least one probe")
        var samples: [UInt64] = []
        for _ in 0..<probes {
            let value = nextPingValue()
            let start = MonotonicClock.now()
            try send(.ping(value))
            let deadline = ChannelDeadline(seconds: timeoutSeconds)
            while true {
                let reply = try receive(timeoutSeconds: max(0.000_001, Double(deadline.remainingNanos) / 1e9))
                // A late PONG of an earlier, timed-out probe is not this one.
                if case .pong(let v) = reply, v != value { continue }
                guard case .pong = reply else {
                    throw ControlChannelError.protocolError(.unexpectedMessage(reply.type, expected: "PONG"))
                }
                break
            }
            samples.append(MonotonicClock.elapsed(since: start))
        }
        samples.sort()
        let mid = samples.count / 2
        let median = samples.count % 2 == 1 ? Double(samples[mid]) : (Double(samples[mid - 1]) + Double(samples[mid])) / 2
        return median / 1e6
    }
}
