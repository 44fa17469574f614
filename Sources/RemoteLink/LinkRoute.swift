import PeerBenchPlugin

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
