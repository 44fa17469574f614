import CPeerBenchSystem
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A peer address resolved to the bytes RTM_GETROUTE takes.
struct PeerAddress {
    var family: Int32
    var bytes: [UInt8]
    var numeric: String

    /// A numeric address as is; a host name through getaddrinfo (its first address).
    init(resolving peer: String) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let host = peer.hasPrefix("[") && peer.hasSuffix("]") ? String(peer.dropFirst().dropLast()) : peer
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0, let first = list else {
            throw InputError("cannot resolve peer \(peer): \(rc == 0 ? "no address" : String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        guard let address = SocketAddress(storage: storage) else { throw InputError("peer \(peer): not an IPv4 or IPv6 address") }
        family = Int32(first.pointee.ai_family)
        numeric = address.host
        var raw = [UInt8](repeating: 0, count: family == AF_INET6 ? 16 : 4)
        _ = inet_pton(family, numeric, &raw)
        bytes = raw
    }

    /// A UDP socket connected to the peer (port 9, discard; connect() sends nothing):
    /// the kernel then reports the route's source address and path MTU on it.
    func connectedUDPSocket() throws -> Socket {
        let socket = try Socket(family: family, type: Int32(SOCK_DGRAM.rawValue))
        do { try socket.connect(SocketAddress(host: numeric, port: 9)) } catch {
            socket.close()
            throw error
        }
        return socket
    }
}

/// rtnetlink questions: the route towards an address and an interface's link record.
enum RouteQuery {
    struct RouteAnswer {
        var interfaceIndex: Int
        var source: String?
        var gateway: String?
    }

    struct LinkAnswer {
        var index: Int
        var name: String
        var mtu: Int?
        var counters: InterfaceCounters?
    }

    /// RTM_GETROUTE for one destination (`ip route get`): the kernel's own FIB lookup.
    static func route(to peer: PeerAddress) throws -> RouteAnswer {
        let socket = try NetlinkSocket(protocol: NETLINK_ROUTE)
        var rtmsg = [UInt8](repeating: 0, count: Int(pb_rtmsg_size))
        rtmsg[0] = UInt8(peer.family)  // rtm_family
        rtmsg[1] = UInt8(peer.bytes.count * 8)  // rtm_dst_len: a host route
        let messages = try socket.request(
            "RTM_GETROUTE \(peer.numeric)", type: UInt16(RTM_GETROUTE), dump: false,
            fixed: rtmsg, attributes: [NetlinkAttribute(type: UInt16(RTA_DST.rawValue), value: peer.bytes)])
        guard let reply = messages.first(where: { Int($0.type) == RTM_NEWROUTE }) else {
            throw NetlinkFailure.timeout(request: "RTM_GETROUTE \(peer.numeric)")
        }
        let attributes = try parseAttributes(reply.payload, fixedSize: Int(pb_rtmsg_size))
        guard let oif = attributes[UInt16(RTA_OIF.rawValue)]?.u32 else {
            throw LinkInspectionError("no route to \(peer.numeric): the kernel's answer names no outgoing interface")
        }
        return RouteAnswer(
            interfaceIndex: Int(oif),
            source: attributes[UInt16(RTA_PREFSRC.rawValue)].flatMap { address($0.value) },
            gateway: attributes[UInt16(RTA_GATEWAY.rawValue)].flatMap { address($0.value) })
    }

    static func link(index: Int) throws -> LinkAnswer {
        try link(index: Int32(index), attributes: [], label: "RTM_GETLINK #\(index)")
    }

    static func link(name: String) throws -> LinkAnswer {
        try link(index: 0, attributes: [NetlinkAttribute(type: UInt16(IFLA_IFNAME), string: name)], label: "RTM_GETLINK \(name)")
    }

    /// RTM_GETLINK for one interface (by index, or by IFLA_IFNAME with index 0).
    private static func link(index: Int32, attributes: [NetlinkAttribute], label: String) throws -> LinkAnswer {
        let socket = try NetlinkSocket(protocol: NETLINK_ROUTE)
        var ifinfo = [UInt8](repeating: 0, count: Int(pb_ifinfomsg_size))
        ifinfo[0] = UInt8(AF_UNSPEC)
        withUnsafeBytes(of: index) { ifinfo.replaceSubrange(4..<8, with: $0) }  // ifi_index
        let messages = try socket.request(label, type: UInt16(RTM_GETLINK), dump: false, fixed: ifinfo, attributes: attributes)
        guard let reply = messages.first(where: { Int($0.type) == RTM_NEWLINK }), reply.payload.count >= Int(pb_ifinfomsg_size) else {
            throw NetlinkFailure.timeout(request: label)
        }
        return try parseLink(reply.payload)
    }

    /// An RTM_NEWLINK payload: `ifinfomsg` then IFLA_IFNAME, IFLA_MTU, IFLA_STATS64.
    static func parseLink(_ payload: [UInt8]) throws(NetlinkParseError) -> LinkAnswer {
        guard payload.count >= Int(pb_ifinfomsg_size) else { throw NetlinkParseError("RTM_NEWLINK shorter than ifinfomsg") }
        let index = Int(Int32(bitPattern: payload.u32(at: 4)))
        let attributes = try parseAttributes(payload, fixedSize: Int(pb_ifinfomsg_size))
        let counters = attributes[UInt16(IFLA_STATS64)].flatMap { stats64($0.value) }
        return LinkAnswer(
            index: index, name: attributes[UInt16(IFLA_IFNAME)]?.string ?? "if\(index)",
            mtu: attributes[UInt16(IFLA_MTU)]?.u32.map(Int.init), counters: counters)
    }

    /// `struct rtnl_link_stats64`, read at the uapi struct's own field offsets.
    static func stats64(_ value: [UInt8]) -> InterfaceCounters? {
        guard value.count >= MemoryLayout<rtnl_link_stats64>.size else { return nil }
        func field(_ path: KeyPath<rtnl_link_stats64, UInt64>) -> UInt64 {
            value.u64(at: MemoryLayout<rtnl_link_stats64>.offset(of: path)!)
        }
        return InterfaceCounters(
            rxPackets: field(\.rx_packets), txPackets: field(\.tx_packets),
            rxBytes: field(\.rx_bytes), txBytes: field(\.tx_bytes),
            rxDropped: field(\.rx_dropped), txDropped: field(\.tx_dropped),
            rxErrors: field(\.rx_errors), txErrors: field(\.tx_errors))
    }

    static func parseAttributes(_ payload: [UInt8], fixedSize: Int) throws(NetlinkParseError) -> [NetlinkAttribute] {
        let start = netlinkAligned(fixedSize)
        guard payload.count >= fixedSize else { throw NetlinkParseError("netlink payload shorter than its \(fixedSize)-byte header") }
        return try NetlinkAttribute.parse(payload.dropFirst(min(start, payload.count)))
    }

    /// An IPv4 or IPv6 address attribute as text.
    static func address(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A link-inspection question the kernel answered in a way that leaves no answer.
struct LinkInspectionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
