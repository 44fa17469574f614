import CPeerBenchSystem
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// TCP_INFO of the client's socket after the bulk phase, recorded under `extra.tcp`.
enum TCPInfo {
    /// The kernel's view of the connection; nil if getsockopt fails (never fatal).
    static func read(_ socket: Socket) -> JSONValue? {
        var info = pb_tcp_info()
        guard (try? socket.withDescriptor("getsockopt(TCP_INFO)", { pb_get_tcp_info($0, &info) })) == 0 else { return nil }
        var o = JSONObject()
        o["retransmits"] = JSONValue(info.retransmits)
        o["lost"] = JSONValue(info.lost)
        o["rtt_us"] = JSONValue(info.rtt_us)
        o["rttvar_us"] = JSONValue(info.rttvar_us)
        o["snd_cwnd"] = JSONValue(info.snd_cwnd)
        o["snd_mss"] = JSONValue(info.snd_mss)
        o["pmtu"] = JSONValue(info.pmtu)
        o["segs_out"] = JSONValue(info.segs_out)
        o["segs_in"] = JSONValue(info.segs_in)
        o["bytes_acked"] = JSONValue(info.bytes_acked)
        o["bytes_retrans"] = JSONValue(info.bytes_retrans)
        // The kernel reports bytes per second; the record's key (docs/RECORDS.md) is bits.
        o["delivery_rate_bps"] = JSONValue(info.delivery_rate &* 8)
        return .object(o)
    }
}
