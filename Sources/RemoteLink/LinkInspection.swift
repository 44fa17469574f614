import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's route towards a peer: the interface the packets leave by and the
/// source address they carry (as `ip route get PEER` shows them).
public struct LinkRoute: Sendable, Codable, Equatable {
    /// The peer's numeric address the route was looked up for.
    public var peer: String
    /// The outgoing interface (`wlan0`, `eth0`; `lo` for an address of this host).
    public var interface: String
    public var interfaceIndex: Int
    /// The source address the kernel picks towards the peer.
    public var source: String?
    /// The next hop, when the peer is not on the interface's own link.
    public var gateway: String?
    /// The outgoing interface's MTU, bytes.
    public var mtu: Int?
    /// The path MTU towards the peer as the kernel knows it now (IP_MTU on a socket
    /// connected to the peer): the interface MTU, or less once ICMP said so.
    public var pathMTU: Int?

    public init(peer: String, interface: String, interfaceIndex: Int, source: String?, gateway: String?, mtu: Int?, pathMTU: Int?) {
        self.peer = peer
        self.interface = interface
        self.interfaceIndex = interfaceIndex
        self.source = source
        self.gateway = gateway
        self.mtu = mtu
        self.pathMTU = pathMTU
    }

    enum CodingKeys: String, CodingKey {
        case peer, interface, interfaceIndex = "interface_index", source, gateway, mtu, pathMTU = "path_mtu"
    }
}

/// An interface's counters as the kernel keeps them (`rtnl_link_stats64`, the numbers
/// `ip -s link` and /sys/class/net/IF/statistics show). They count every packet on the
/// interface, not only the cell's.
public struct InterfaceCounters: Sendable, Codable, Equatable {
    public var rxPackets: UInt64
    public var txPackets: UInt64
    public var rxBytes: UInt64
    public var txBytes: UInt64
    public var rxDropped: UInt64
    public var txDropped: UInt64
    public var rxErrors: UInt64
    public var txErrors: UInt64

    public init(
        rxPackets: UInt64, txPackets: UInt64, rxBytes: UInt64, txBytes: UInt64,
        rxDropped: UInt64, txDropped: UInt64, rxErrors: UInt64, txErrors: UInt64
    ) {
        self.rxPackets = rxPackets
        self.txPackets = txPackets
        self.rxBytes = rxBytes
        self.txBytes = txBytes
        self.rxDropped = rxDropped
        self.txDropped = txDropped
        self.rxErrors = rxErrors
        self.txErrors = txErrors
    }

    // snake_case on the wire, as in the records (SERVER_READY / SERVER_RESULT carry snapshots).
    enum CodingKeys: String, CodingKey {
        case rxPackets = "rx_packets", txPackets = "tx_packets", rxBytes = "rx_bytes", txBytes = "tx_bytes"
        case rxDropped = "rx_dropped", txDropped = "tx_dropped", rxErrors = "rx_errors", txErrors = "tx_errors"
    }
}

/// What nl80211 says about the peer station of a wireless interface (as `iw dev IF
/// station dump` and `iw dev IF survey dump` show it). Every figure is optional:
/// drivers report different subsets.
public struct WirelessStation: Sendable, Codable, Equatable {
    /// The station's MAC address, `aa:bb:cc:dd:ee:ff`.
    public var mac: String?
    /// Signal of the last frame received from the station, dBm (NL80211_STA_INFO_SIGNAL).
    public var signalDbm: Int?
    /// The driver's average signal, dBm (NL80211_STA_INFO_SIGNAL_AVG).
    public var signalAverageDbm: Int?
    /// Noise floor of the channel in use, dBm (survey; only some drivers give it).
    public var noiseDbm: Int?
    /// MCS index of the transmit rate towards the station (HT, VHT, HE or EHT).
    public var txMCS: Int?
    /// Transmit bitrate towards the station, Mbit/s.
    public var txBitrateMbps: Double?
    /// Receive bitrate from the station, Mbit/s.
    public var rxBitrateMbps: Double?
    /// Milliseconds since the station was last heard (NL80211_STA_INFO_INACTIVE_TIME).
    public var inactiveMs: Int?
    /// Centre frequency of the channel in use, MHz (survey).
    public var frequencyMHz: Int?

    public init(
        mac: String? = nil, signalDbm: Int? = nil, signalAverageDbm: Int? = nil, noiseDbm: Int? = nil,
        txMCS: Int? = nil, txBitrateMbps: Double? = nil, rxBitrateMbps: Double? = nil,
        inactiveMs: Int? = nil, frequencyMHz: Int? = nil
    ) {
        self.mac = mac
        self.signalDbm = signalDbm
        self.signalAverageDbm = signalAverageDbm
        self.noiseDbm = noiseDbm
        self.txMCS = txMCS
        self.txBitrateMbps = txBitrateMbps
        self.rxBitrateMbps = rxBitrateMbps
        self.inactiveMs = inactiveMs
        self.frequencyMHz = frequencyMHz
    }

    enum CodingKeys: String, CodingKey {
        case mac, signalDbm = "signal_dbm", signalAverageDbm = "signal_average_dbm", noiseDbm = "noise_dbm", txMCS = "tx_mcs"
        case txBitrateMbps = "tx_bitrate_mbps", rxBitrateMbps = "rx_bitrate_mbps", inactiveMs = "inactive_ms"
        case frequencyMHz = "frequency_mhz"
    }

    /// Signal minus noise, dB, when the driver gives both.
    public var snrDb: Int? {
        guard let signal = signalDbm ?? signalAverageDbm, let noise = noiseDbm else { return nil }
        return signal - noise
    }
}

/// One interface at one moment: its counters and, on Wi-Fi, its peer station.
public struct InterfaceSnapshot: Sendable, Codable, Equatable {
    public var name: String
    /// nil when the kernel has no such interface (in this network namespace).
    public var counters: InterfaceCounters?
    /// nil when the interface is not wireless or nl80211 is absent (no cfg80211).
    public var station: WirelessStation?

    public init(name: String, counters: InterfaceCounters?, station: WirelessStation?) {
        self.name = name
        self.counters = counters
        self.station = station
    }
}

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
