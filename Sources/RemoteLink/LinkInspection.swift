import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What the kernel says about a real link, asked of the kernel itself over netlink
/// (rtnetlink for routes, links and counters; generic netlink's nl80211 for Wi-Fi)
/// and socket options — never by running and scraping `ip` or `iw`. Every call works
/// in the calling thread's network namespace (netlink sockets are per namespace,
/// unlike /sys/class/net, which shows the namespace sysfs was mounted in).
public enum LinkInspection {
    /// The route the kernel would use towards `peer` (a numeric IPv4 or IPv6 address,
    /// or a host name, resolved first): RTM_GETROUTE, then RTM_GETLINK for the MTU, and
    /// the path MTU from a UDP socket connected to the peer (which sends nothing).
    public static func route(to peer: String) throws -> LinkRoute {
        let address = try PeerAddress(resolving: peer)
        let answer = try RouteQuery.route(to: address)
        let link = try? RouteQuery.link(index: answer.interfaceIndex)
        var source = answer.source
        var pathMTU: Int?
        if let probe = try? address.connectedUDPSocket() {
            defer { probe.close() }
            pathMTU = Self.pathMTU(of: probe)
            if source == nil { source = try? probe.localAddress().host }
        }
        let name = link?.name ?? interfaceName(index: answer.interfaceIndex) ?? "if\(answer.interfaceIndex)"
        return LinkRoute(
            peer: address.numeric, interface: name, interfaceIndex: answer.interfaceIndex, source: source,
            gateway: answer.gateway, mtu: link?.mtu, pathMTU: pathMTU)
    }

    /// The path MTU of a connected socket (IP_MTU, IPV6_MTU for an IPv6 socket): what
    /// the kernel knows now, the route's MTU until an ICMP "fragmentation needed" /
    /// "packet too big" lowers it. nil for an unconnected or closed socket.
    public static func pathMTU(of connectedSocket: Socket) -> Int? {
        let family = (try? connectedSocket.localAddress())?.family ?? AF_INET
        let (level, name) = family == AF_INET6 ? (Int32(IPPROTO_IPV6), Int32(IPV6_MTU)) : (Int32(IPPROTO_IP), Int32(IP_MTU))
        guard let mtu = try? connectedSocket.getOption(level, name, as: Int32.self, initial: 0, "IP_MTU"), mtu > 0 else { return nil }
        return Int(mtu)
    }

    /// The interface's counters (RTM_GETLINK, IFLA_STATS64) and, when it is wireless, its
    /// peer station (nl80211). Never throws: what the kernel cannot tell stays nil.
    public static func snapshot(interface: String) -> InterfaceSnapshot {
        let link = try? RouteQuery.link(name: interface)
        let station = link.flatMap { WirelessQuery.station(interfaceIndex: $0.index) }
        return InterfaceSnapshot(name: interface, counters: link?.counters, station: station)
    }

    static func interfaceName(index: Int) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &buffer) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
