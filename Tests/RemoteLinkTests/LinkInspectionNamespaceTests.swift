import CPeerBenchSystem
import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

#if canImport(Glibc)
    import Glibc
#endif

/// Two namespaces joined by a veth pair (MTU 1400 by default), IPv6 off unless asked
/// for (no router solicitations or DAD moving the counters behind the test's back).
final class VethPair: @unchecked Sendable {
    let client = NetworkNamespace(name: "pbl-c-\(getpid())")
    let server = NetworkNamespace(name: "pbl-s-\(getpid())")
    static let clientInterface = "pbl-vc", serverInterface = "pbl-vs"
    static let clientAddress = "10.213.9.1", serverAddress = "10.213.9.2"

    init(mtu: Int = 1400, ipv6: Bool = false) throws {
        let c = client.name, s = server.name
        remove()
        let v6 = ipv6 ? 0 : 1
        try Self.sh(
            """
            ip netns add \(c) && ip netns add \(s) &&
            ip netns exec \(c) sysctl -qw net.ipv6.conf.all.disable_ipv6=\(v6) net.ipv6.conf.default.disable_ipv6=\(v6) &&
            ip netns exec \(s) sysctl -qw net.ipv6.conf.all.disable_ipv6=\(v6) net.ipv6.conf.default.disable_ipv6=\(v6) &&
            ip link add \(Self.clientInterface) netns \(c) type veth peer name \(Self.serverInterface) netns \(s) &&
            ip -n \(c) link set \(Self.clientInterface) mtu \(mtu) && ip -n \(s) link set \(Self.serverInterface) mtu \(mtu) &&
            ip -n \(c) addr add \(Self.clientAddress)/30 dev \(Self.clientInterface) &&
            ip -n \(s) addr add \(Self.serverAddress)/30 dev \(Self.serverInterface) &&
            ip -n \(c) link set \(Self.clientInterface) up && ip -n \(s) link set \(Self.serverInterface) up &&
            ip -n \(c) link set lo up && ip -n \(s) link set lo up
            """)
    }

    /// Deletes both namespaces (and with them the veth pair); safe to call twice.
    func remove() {
        _ = try? Self.sh("ip netns del \(client.name) 2>/dev/null; ip netns del \(server.name) 2>/dev/null; true")
    }

    @discardableResult
    static func sh(_ script: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw InputError("shell failed: \(script)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The kernel's own view of an interface's counters, as iproute2 reads them.
    static func ipCounters(namespace: NetworkNamespace, interface: String) throws -> InterfaceCounters {
        let json = try sh("ip -n \(namespace.name) -j -s link show dev \(interface)")
        let list = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        let stats = list?.first?["stats64"] as? [String: [String: Any]]
        func v(_ dir: String, _ key: String) -> UInt64 { (stats?[dir]?[key] as? NSNumber)?.uint64Value ?? .max }
        return InterfaceCounters(
            rxPackets: v("rx", "packets"), txPackets: v("tx", "packets"), rxBytes: v("rx", "bytes"),
            txBytes: v("tx", "bytes"), rxDropped: v("rx", "dropped"), txDropped: v("tx", "dropped"),
            rxErrors: v("rx", "errors"), txErrors: v("tx", "errors"))
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct LinkInspectionNamespaceTests {
    static let isRoot = getuid() == 0

    @Test(.enabled(if: isRoot, "needs root for ip netns"))
    func routeFindsTheVethItsSourceAndMTU() async throws {
        let pair = try VethPair(mtu: 1400)
        defer { pair.remove() }
        let route = try await BlockingThread.run(name: "route", namespace: pair.client) {
            try LinkInspection.route(to: VethPair.serverAddress)
        }
        #expect(route.peer == VethPair.serverAddress)
        #expect(route.interface == VethPair.clientInterface)
        #expect(route.source == VethPair.clientAddress)
        #expect(route.gateway == nil)
        #expect(route.mtu == 1400)
        #expect(route.pathMTU == 1400)

        let (loopback, pathMTU) = try await BlockingThread.run(name: "route-lo", namespace: pair.client) {
            let socket = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            defer { socket.close() }
            try socket.connect(SocketAddress(host: VethPair.serverAddress, port: 7))
            return (try LinkInspection.route(to: "127.0.0.1"), LinkInspection.pathMTU(of: socket))
        }
        #expect(loopback.interface == "lo")
        #expect(pathMTU == 1400)
    }

    @Test(.enabled(if: isRoot, "needs root for ip netns"))
    func routeToAnUnreachablePeerIsAClearError() async throws {
        let pair = try VethPair()
        defer { pair.remove() }
        // The namespace has no default route: 192.0.2.1 (TEST-NET-1) is unreachable.
        let error = await #expect(throws: (any Error).self) {
            try await BlockingThread.run(name: "route", namespace: pair.client) { try LinkInspection.route(to: "192.0.2.1") }
        }
        #expect("\(error!)".contains("RTM_GETROUTE 192.0.2.1"))
        #expect("\(error!)".contains("unreachable"))
    }

    @Test(.enabled(if: isRoot, "needs root for ip netns"))
    func countersGrowByWhatWasSentAndMatchTheKernel() async throws {
        let pair = try VethPair()
        defer { pair.remove() }
        let count = 200, size = 1000
        let client = pair.client, server = pair.server
        let beforeClient = try await BlockingThread.run(name: "snap", namespace: client) {
            LinkInspection.snapshot(interface: VethPair.clientInterface)
        }
        let beforeServer = try await BlockingThread.run(name: "snap", namespace: server) {
            LinkInspection.snapshot(interface: VethPair.serverInterface)
        }

        let receiver = try await BlockingThread.run(name: "bind", namespace: server) { () -> Socket in
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.bind(SocketAddress(host: VethPair.serverAddress, port: 7_900))
            try s.setReceiveTimeout(nanoseconds: 2_000_000_000)
            return s
        }
        defer { receiver.close() }
        async let received = BlockingThread.run(name: "recv") { () -> Int in
            var n = 0
            var buffer = [UInt8](repeating: 0, count: 2_048)
            while n < count, let got = try buffer.withUnsafeMutableBytes({ try receiver.receive($0) }), got > 0 { n += 1 }
            return n
        }
        try await BlockingThread.run(name: "send", namespace: client) {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            defer { s.close() }
            try s.connect(SocketAddress(host: VethPair.serverAddress, port: 7_900))
            let payload = [UInt8](repeating: 0x5a, count: size)
            for _ in 0..<count {
                _ = try payload.withUnsafeBytes { try s.send($0) }
                usleep(200)  // the receiver's socket buffer must not overflow
            }
        }
        #expect(try await received == count)

        let afterClient = try await BlockingThread.run(name: "snap", namespace: client) {
            LinkInspection.snapshot(interface: VethPair.clientInterface)
        }
        let afterServer = try await BlockingThread.run(name: "snap", namespace: server) {
            LinkInspection.snapshot(interface: VethPair.serverInterface)
        }
        let c0 = try #require(beforeClient.counters), c1 = try #require(afterClient.counters)
        let s0 = try #require(beforeServer.counters), s1 = try #require(afterServer.counters)
        let ipBytes = UInt64(count * (size + 28)), frameBytes = UInt64(count * (size + 28 + 14))
        #expect(c1.txPackets - c0.txPackets >= UInt64(count))
        #expect(c1.txBytes - c0.txBytes >= min(ipBytes, frameBytes))
        #expect(s1.rxPackets - s0.rxPackets >= UInt64(count))
        #expect(s1.rxBytes - s0.rxBytes >= min(ipBytes, frameBytes))
        // Only ARP besides the test's datagrams: a handful of packets, not hundreds.
        #expect(c1.txPackets - c0.txPackets <= UInt64(count + 5))
        #expect(afterClient.station == nil)  // a veth is not wireless
        #expect(afterServer.station == nil)

        // The same numbers the kernel gives iproute2 (read between two of ours that agree).
        for namespace in [client, server] {
            let name = namespace == client ? VethPair.clientInterface : VethPair.serverInterface
            var matched = false
            for _ in 0..<3 where !matched {
                let a = try await BlockingThread.run(name: "snap", namespace: namespace) { LinkInspection.snapshot(interface: name) }
                let kernel = try VethPair.ipCounters(namespace: namespace, interface: name)
                let b = try await BlockingThread.run(name: "snap", namespace: namespace) { LinkInspection.snapshot(interface: name) }
                if a == b {
                    #expect(a.counters == kernel)
                    matched = true
                }
            }
            #expect(matched, "the counters of \(name) kept moving")
        }
    }

    @Test func snapshotOfAMissingInterfaceHasNoCountersAndNoStation() {
        let snapshot = LinkInspection.snapshot(interface: "pbl-nosuch0")
        #expect(snapshot == InterfaceSnapshot(name: "pbl-nosuch0", counters: nil, station: nil))
        let loopback = LinkInspection.snapshot(interface: "lo")
        #expect(loopback.counters != nil)
        #expect(loopback.station == nil)
    }

    /// This kernel has no cfg80211: the family lookup must come back empty, not fail.
    @Test func nl80211AbsentOrNotWirelessGivesNil() throws {
        let socket = try NetlinkSocket(protocol: NETLINK_GENERIC)
        let family = WirelessQuery.familyID(socket)
        if family == nil {
            // No nl80211 family means no cfg80211: then no wireless PHY is registered either.
            let phys = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/ieee80211")) ?? []
            #expect(phys.isEmpty)
        }
        #expect(WirelessQuery.station(interfaceIndex: 1) == nil)  // 1 is always lo
    }
}
