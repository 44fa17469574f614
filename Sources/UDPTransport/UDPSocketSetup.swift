import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Socket settings both ends share.
enum UDPSocketSetup {
    /// Socket buffer size asked for: enough for a burst of back-to-back datagrams, so a
    /// loopback run does not drop just because the receiver was descheduled briefly.
    static let bufferBytes: Int32 = 16 << 20

    /// A datagram socket with the plugin's buffers: `receiveBuffer` bytes of SO_RCVBUF
    /// (nil = `bufferBytes`).
    static func make(family: Int32, receiveBuffer: Int? = nil) throws -> Socket {
        let s = try Socket(family: family, type: Int32(SOCK_DGRAM.rawValue))
        setBuffers(s, receive: receiveBuffer.map { Int32($0) } ?? bufferBytes)
        // Datagrams above the path MTU must be fragmented, not refused: fragmentation is
        // part of what is measured, so path-MTU discovery (DF bit) is switched off.
        if family == AF_INET6 {
            try s.setOption(Int32(IPPROTO_IPV6), IPV6_MTU_DISCOVER, Int32(IPV6_PMTUDISC_DONT), "IPV6_MTU_DISCOVER")
        } else {
            try s.setOption(Int32(IPPROTO_IP), IP_MTU_DISCOVER, Int32(IP_PMTUDISC_DONT), "IP_MTU_DISCOVER")
        }
        return s
    }

    /// SO_*BUFFORCE passes net.core.[rw]mem_max (root only); without privilege fall back
    /// to the ordinary options, which the kernel caps silently.
    private static func setBuffers(_ s: Socket, receive: Int32) {
        if (try? s.setOption(SOL_SOCKET, SO_RCVBUFFORCE, receive, "SO_RCVBUFFORCE")) == nil {
            try? s.setOption(SOL_SOCKET, SO_RCVBUF, receive, "SO_RCVBUF")
        }
        if (try? s.setOption(SOL_SOCKET, SO_SNDBUFFORCE, bufferBytes, "SO_SNDBUFFORCE")) == nil {
            try? s.setOption(SOL_SOCKET, SO_SNDBUF, bufferBytes, "SO_SNDBUF")
        }
    }

    /// Bounds one blocking receive by `nanos` and the cell's deadline.
    static func receiveTimeout(_ s: Socket, nanos: UInt64) throws {
        try s.setReceiveTimeout(nanoseconds: max(nanos, 1_000))
    }
}
