import PeerBenchPlugin

/// The sizes the workload kinds beyond the upload can carry over udp
/// (docs/protocol/udp.md, "Workloads"): every request, response and frame is one
/// datagram, so each must fit in the largest IPv4 UDP payload with the header, the
/// REQUEST's response-size field and, for what the client sends, the authentication
/// tag of a remote link's cell (the plugin cannot know at validation whether one applies).
enum UDPWorkloadLimits {
    /// REQUEST: header + {response bytes u64} + the request + a tag: 65 467 bytes.
    static let maxRequestBytes = UDPDatagramHeader.maxIPv4Payload - UDPDatagramHeader.size - 8 - UDPDatagramTag.size
    /// RESPONSE: header + the response (the server's datagrams carry no tag): 65 483 bytes.
    static let maxResponseBytes = UDPDatagramHeader.maxIPv4Payload - UDPDatagramHeader.size
    /// FRAME: header + the frame + a tag (the client's up frames are tagged): 65 475 bytes.
    static let maxFrameBytes = UDPDatagramHeader.maxIPv4Payload - UDPDatagramHeader.size - UDPDatagramTag.size
    /// Delays per FRAME_REPORT datagram: 8 040 bytes, like a REPORT with its series.
    static let delaysPerReport = 1_000
    /// How long the server lingers at most for frames still in flight after FRAME_END.
    static let maxLingerNanos: UInt64 = 5_000_000_000
    /// The frame period a server accepts, nanoseconds (WorkloadSpec.Limits.periodMs).
    static let periodNanos: ClosedRange<UInt64> =
        UInt64(WorkloadSpec.Limits.periodMs.lowerBound * 1e6)...UInt64(WorkloadSpec.Limits.periodMs.upperBound * 1e6)
}
