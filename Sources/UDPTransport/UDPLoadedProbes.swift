import PeerBenchPlugin
import PeerBenchWorkloads

/// The client's loaded RTT probes on the bulk flow (`loadedRttProbes`, `UDPClient+LoadedProbes`):
/// their schedule, the RTTs of the echoes in so far, and whether only their echoes are
/// still awaited.
struct UDPLoadedProbes {
    /// When each probe falls due; none with a separate flow, which has its own prober.
    var schedule: LoadedProbeSchedule
    var rtts: [UInt64] = []
    /// Set while only loaded echoes are awaited: `waitFor` returns once all are in.
    var draining = false
}
