import PeerBenchPlugin

/// The emulator's channel model, as far as the core sees it: what the performance mode
/// changes, its duty cycle, and what its timing adds to a round trip. The link
/// emulation module's channel conforms; the core only sees this protocol.
public protocol PerformanceModeAdaptable: Sendable {
    /// This channel in `mode`, and the factor by which the link's long-run rate changes
    /// (the share of time on the peer-to-peer channel, new over old).
    func adapted(to mode: PerformanceMode) -> (channel: any Sendable, rateFactor: Double)
    /// The share of time the radio spends on the peer-to-peer channel (its duty cycle,
    /// for the energy model).
    var onChannelFraction: Double { get }
    /// Mean seconds a lone request and its answer wait for the channel beyond the link's
    /// delay (AWDL's availability windows); 0 where frames leave at once. The cost model
    /// adds it to every round trip it charges (handshakes, probes, transactions).
    var roundTripWaitSeconds: Double { get }
}
