import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Marks a socket's traffic with a Wi-Fi service class, as an app's choice of class
/// reaches the radio on Linux: the IP header's DSCP (`IP_TOS`, `IPV6_TCLASS`), which a
/// Wi-Fi driver maps to a WMM access category (`cfg80211_classify8021d`), and
/// the socket priority (`SO_PRIORITY`, the 802.1D user priority), which queueing
/// disciplines and drivers that classify by `skb->priority` use.
extension Socket {
    /// Sets DSCP and `SO_PRIORITY` for `serviceClass`. Sockets that are not IPv4 or
    /// IPv6 (Unix sockets) are left alone.
    public func setServiceClass(_ serviceClass: ServiceClass) throws(SystemError) {
        let domain = try getOption(SOL_SOCKET, SO_DOMAIN, as: Int32.self, initial: 0, "SO_DOMAIN")
        switch domain {
        case AF_INET:
            try setOption(Int32(IPPROTO_IP), IP_TOS, serviceClass.trafficClassByte, "IP_TOS")
        case AF_INET6:
            try setOption(Int32(IPPROTO_IPV6), IPV6_TCLASS, serviceClass.trafficClassByte, "IPV6_TCLASS")
            // An IPv6 socket may carry IPv4 (mapped addresses): mark those packets too.
            try? setOption(Int32(IPPROTO_IP), IP_TOS, serviceClass.trafficClassByte, "IP_TOS")
        default:
            return
        }
        // After IP_TOS, which resets the priority to rt_tos2priority(tos).
        try setOption(SOL_SOCKET, SO_PRIORITY, serviceClass.userPriority, "SO_PRIORITY")
    }

    /// What the socket carries: (DSCP, SO_PRIORITY), for tests and records.
    public func serviceMarking() throws(SystemError) -> (dscp: UInt8, priority: Int32) {
        let domain = try getOption(SOL_SOCKET, SO_DOMAIN, as: Int32.self, initial: 0, "SO_DOMAIN")
        let tos =
            domain == AF_INET6
            ? try getOption(Int32(IPPROTO_IPV6), IPV6_TCLASS, as: Int32.self, initial: 0, "IPV6_TCLASS")
            : try getOption(Int32(IPPROTO_IP), IP_TOS, as: Int32.self, initial: 0, "IP_TOS")
        let priority = try getOption(SOL_SOCKET, SO_PRIORITY, as: Int32.self, initial: 0, "SO_PRIORITY")
        return (UInt8(truncatingIfNeeded: tos >> 2), priority)
    }
}
