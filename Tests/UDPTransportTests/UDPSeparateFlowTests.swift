import PeerBenchCore
import PeerBenchPlugin
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import UDPTransport

/// Loaded probes on a separate UDP socket pair (`loadedRttProbes.flow` `separate`),
/// over loopback: the server announces a second port in HELLO_ACK and echoes there.
@Suite struct UDPSeparateFlowTests {
    @Test("paced bulk with probes every 10 ms on a second socket pair: answered, counted, none on the data's socket")
    func separateSocketPair() async throws {
        let plugin = UDPPlugin(UDPOptions(rateMbps: 50, loadedRttProbes: LoadedRttProbes(intervalMs: 10, flow: .separate)))
        // 3 MB at 50 Mbit/s: about half a second of bulk.
        let cell = makeCell(payload: Payload(count: 2_500, size: 1_200), probes: 5, seconds: 30)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        let loaded = try #require(m.rttLoadedNanos)
        let bulkMs = Double(m.bulkNanos ?? 0) / 1e6
        #expect(loaded.count >= 10 && Double(loaded.count) <= bulkMs / 10 + 1, "\(loaded.count) probes in \(bulkMs) ms")
        #expect(loaded.allSatisfy { $0 > 0 && $0 < 1_000_000_000 })
        let udp = try #require(m.extra["udp"])
        #expect(udp["loaded_probes_sent"]?.intValue == loaded.count + (udp["loaded_probes_lost"]?.intValue ?? -1))
        #expect(udp["loaded_probes_lost"]?.intValue == 0, "loopback loses nothing")
        #expect(m.delivery?.receivedMessages == 2_500)
        #expect(m.bulkSeries?.datagrams?.reduce(0, +) == 2_500, "the probes are not counted as data")
    }

    @Test("the server's HELLO_ACK carries the probe port only with a separate flow")
    func helloAckAnnouncesThePort() async throws {
        let plain = UDPPlugin(UDPOptions(loadedRttProbes: LoadedRttProbes(intervalMs: 10)))
        let cell = makeCell(payload: Payload(count: 200, size: 500), probes: 2, seconds: 20)
        let server = try await plain.startServer(cell)
        let m = try await plain.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok, "same flow: no second port, as before")
    }
}
