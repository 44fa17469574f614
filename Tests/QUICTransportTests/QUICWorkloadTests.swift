import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import QUICTransport
import Testing

/// The standard workload between our client and our server on loopback.
@Suite(.timeLimit(.minutes(2))) struct QUICWorkloadTests {
    /// Runs one loopback cell and waits for the server to finish too.
    func runCell(_ plugin: QUICPlugin, payload: Payload?, probes: Int = 10) async throws -> TransportMeasurement {
        try await runLoopbackCell(plugin, payload: payload, probes: probes)
    }

    @Test(arguments: [StreamMode.single, .perMessage])
    func probesAndBulkCountEveryByte(mode: StreamMode) async throws {
        let plugin = try makePlugin(["streams": .string(mode.rawValue)])
        let m = try await withTimeout(30) { try await runCell(plugin, payload: Payload(count: 1000, size: 4096), probes: 20) }
        #expect(m.connectNanos.map { $0 > 0 && $0 < 1_000_000_000 } == true)
        #expect(m.rttNanos.count == 20)
        #expect(m.rttNanos.allSatisfy { $0 > 0 && $0 < 100_000_000 })
        #expect(m.delivery == Delivery(sentMessages: 1000, receivedMessages: 1000, sentBytes: 4_096_000, receivedBytes: 4_096_000))
        #expect(m.status == CellStatus.ok)
        #expect((m.bulkNanos ?? 0) > 0)
        let quic = m.extra["quic"]?.objectValue ?? JSONObject()
        #expect(quic["alpn"] == "peerbench-quic/2")
        #expect(quic["server_bulk_streams"]?.intValue == (mode == .single ? 1 : 1000))
        #expect((quic["smoothed_rtt_ms"]?.doubleValue ?? -1) > 0)
        #expect((quic["cwnd_bytes"]?.intValue ?? 0) > 0)
    }

    /// IPv6 loopback: the bundled server identity covers ::1 too.
    @Test func ipv6Loopback() async throws {
        let plugin = try makePlugin()
        var v6 = CellContext.loopback(payload: Payload(count: 50, size: 2000), rttProbes: 3)
        v6.client = Endpoint(address: "::1")
        v6.server = Endpoint(address: "::1")
        let cell = v6
        let server = try await plugin.startServer(cell)
        #expect(server.address.host == "::1")
        let m = try await withTimeout(30) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.delivery == Delivery(sentMessages: 50, receivedMessages: 50, sentBytes: 100_000, receivedBytes: 100_000))
    }

    /// With the link's MTU known, datagrams are as large as fit, no larger.
    @Test func datagramsFitTheLinkMTU() async throws {
        let plugin = try makePlugin()
        var withMTU = CellContext.loopback(payload: Payload(count: 200, size: 16384), rttProbes: 1)
        withMTU.link.mtu = 1400
        let cell = withMTU
        let server = try await plugin.startServer(cell)
        let m = try await withTimeout(30) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.extra["quic"]?["max_udp_payload_bytes"]?.intValue == 1372)
        let sent = m.extra["quic"]?["udp_bytes_sent"]?.intValue ?? 0
        let datagrams = m.extra["quic"]?["datagrams_sent"]?.intValue ?? 1
        #expect(sent / datagrams > 1300, "average datagram \(sent / datagrams) bytes")
    }

    @Test func oddSizesAndEmptyMessages() async throws {
        let plugin = try makePlugin()
        let m = try await withTimeout(30) { try await runCell(plugin, payload: Payload(count: 3, size: 0), probes: 1) }
        #expect(m.delivery == Delivery(sentMessages: 3, receivedMessages: 3, sentBytes: 0, receivedBytes: 0))
        let m2 = try await withTimeout(30) { try await runCell(plugin, payload: Payload(count: 7, size: 100_001), probes: 0) }
        #expect(m2.delivery == Delivery(sentMessages: 7, receivedMessages: 7, sentBytes: 700_007, receivedBytes: 700_007))
        #expect(m2.rttNanos.isEmpty)
    }
}
