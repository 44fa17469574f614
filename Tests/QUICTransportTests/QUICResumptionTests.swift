import PeerBenchCore
import PeerBenchPlugin
import QUICTransport
import Testing

/// `resumption` and `zeroRTT` over loopback: the priming connection's session is
/// resumed (GnuTLS says so) and with 0-RTT the server accepted the early data.
/// The time saved over a 20 ms link is shown by ResumptionRunTests (PeerBenchCLITests).
@Suite(.timeLimit(.minutes(2))) struct QUICResumptionTests {
    func runCell(_ plugin: QUICPlugin, payload: Payload?, probes: Int) async throws -> TransportMeasurement {
        try await runLoopbackCell(plugin, payload: payload, probes: probes)
    }

    @Test("resumption: the measured connection resumes; no early data is offered")
    func resumes() async throws {
        let plugin = try makePlugin(["resumption": true])
        let m = try await withTimeout(30) { try await runCell(plugin, payload: Payload(count: 200, size: 4096), probes: 5) }
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        let quic = try #require(m.extra["quic"]?.objectValue)
        #expect(quic["resumed"] == .bool(true))
        #expect(quic["early_data_accepted"] == nil, "zeroRTT is off")
        #expect((quic["priming_connect_ms"]?.doubleValue ?? 0) > 0)
        #expect((quic["first_echo_ms"]?.doubleValue ?? 0) > 0)
        #expect(m.rttNanos.count == 5)
        #expect(m.delivery == Delivery(sentMessages: 200, receivedMessages: 200, sentBytes: 819_200, receivedBytes: 819_200))
    }

    @Test(
        "zeroRTT: HELLO and the first PING go as early data, the server accepts it, the workload is unchanged",
        arguments: [RTTMethod.pingPong, .pipelined])
    func zeroRTT(method: RTTMethod) async throws {
        let plugin = try makePlugin(["resumption": true, "zeroRTT": true])
        var cell = CellContext.loopback(payload: Payload(count: 200, size: 4096), rttProbes: 5)
        cell.rttMethod = method
        let c = cell
        let server = try await plugin.startServer(c)
        let m = try await withTimeout(30) { try await plugin.runClient(c, server: server.address) }
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        let quic = try #require(m.extra["quic"]?.objectValue)
        #expect(quic["early_data_accepted"] == .bool(true), "\(quic)")
        #expect(m.rttNanos.count == 5, "the early PING is not one of the idle probes")
        #expect(m.delivery?.receivedBytes == 819_200)
    }

    @Test("a server whose tickets allow no early data: HELLO and the PING go again after the handshake, the cell is ok")
    func earlyDataRefused() async throws {
        // The server resumes sessions but accepts no early data (no zeroRTT on its side):
        // ngtcp2 is told the early data was refused and drops the streams that held it.
        let server = try makePlugin(["resumption": true]), client = try makePlugin(["resumption": true, "zeroRTT": true])
        let cell = CellContext.loopback(payload: Payload(count: 50, size: 4096), rttProbes: 3)
        let s = try await server.startServer(cell)
        let m = try await withTimeout(30) { try await client.runClient(cell, server: s.address) }
        try await s.finish()
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        let quic = try #require(m.extra["quic"]?.objectValue)
        #expect(quic["early_data_accepted"] == .bool(false), "\(quic)")
        #expect(m.rttNanos.count == 3)
        #expect(m.delivery?.receivedBytes == 204_800)
    }

    @Test("with a separate probe flow too: the priming connection's PROBE_HELLO place is free again for it")
    func separateFlow() async throws {
        let plugin = try makePlugin(["resumption": true, "zeroRTT": true, "loadedRttProbes": ["intervalMs": 2, "flow": "separate"]])
        let m = try await withTimeout(30) { try await runCell(plugin, payload: Payload(count: 3_000, size: 4096), probes: 3) }
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        #expect((m.rttLoadedNanos?.count ?? 0) >= 1, "the separate flow was served: \(String(describing: m.rttLoadedNanos))")
        #expect(m.delivery?.receivedBytes == 12_288_000)
    }

    @Test("without resumption the record has no resumption keys and no priming connection is made")
    func offByDefault() async throws {
        let m = try await withTimeout(30) { try await runCell(try makePlugin(), payload: nil, probes: 2) }
        #expect(m.resumed == nil)
        let quic = try #require(m.extra["quic"]?.objectValue)
        #expect(quic["resumed"] == nil && quic["priming_connect_ms"] == nil && quic["early_data_accepted"] == nil)
        #expect((quic["first_echo_ms"]?.doubleValue ?? 0) > 0)
    }
}
