import PeerBenchJSON
import PeerBenchPlugin

extension ReconnectPolicy {
    /// `read` for a stream transport (tcp, tls), refused where it cannot work: without
    /// `userTimeoutMs` a connection whose peer vanished mid-transfer is never noticed
    /// lost (keepalive only probes an idle connection, and the bulk phase always has
    /// data in flight), so the client would stall and never reconnect; loaded RTT
    /// probes are not carried across a reconnect.
    public static func readForStream(
        _ options: PluginOptions, userTimeout: TCPUserTimeout?,
        withLoadedRttProbes loaded: Bool
    ) throws(InputError) -> ReconnectPolicy? {
        try read(
            options, detectedBy: userTimeout != nil, withLoadedRttProbes: loaded,
            missing:
                "userTimeoutMs: without it a connection whose peer is gone stalls with data in flight for the kernel's ~15 minutes and is never noticed lost (keepAlive only probes an idle connection), so no reconnect would ever start"
        )
    }
}
