import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import TCPTransport
import Testing
import TransportTestSupport

/// Loaded probes on a separate flow (`loadedRttProbes.flow` `separate`), over loopback:
/// a second connection to the same server carries only probes while the first carries
/// the data.
@Suite struct TCPSeparateFlowTests {
    static func check(_ m: TransportMeasurement, intervalMs: Double) throws {
        #expect(m.status == .ok)
        #expect(m.delivery?.receivedBytes == 131_072_000)
        #expect(m.bulkSeries.map { $0.bytes.reduce(0, +) } == 131_072_000)
        let loaded = try #require(m.rttLoadedNanos)
        let bulkMs = Double(m.bulkNanos ?? 0) / 1e6
        // Ping-pong, one per interval from the bulk phase's start; the prober stops when
        // the client's thread, woken by the REPORT, tells it to (on a loaded machine
        // some ms after the REPORT), hence the room above bulk / interval.
        #expect(loaded.count >= 3 && Double(loaded.count) <= 1.5 * bulkMs / intervalMs + 5, "\(loaded.count) probes in \(bulkMs) ms")
        #expect(loaded.allSatisfy { $0 > 0 && $0 < UInt64(bulkMs * 1e6) })
        #expect(m.rttNanos.count == 5, "the idle probes stay on the first connection")
    }

    @Test("tcp: probes on a second connection while the first carries 131 MB")
    func tcp() async throws {
        let plugin = TCPPlugin(TCPOptions(noDelay: true, loadedRttProbes: LoadedRttProbes(intervalMs: 2, flow: .separate)))
        let cell = makeCell(payload: Payload(count: 8_000, size: 16_384), probes: 5, seconds: 60)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        try Self.check(m, intervalMs: 2)
    }

    @Test("tcp without a bulk phase: the server does not wait for a probe connection that never comes")
    func noBulkNoSecondConnection() async throws {
        let plugin = TCPPlugin(TCPOptions(loadedRttProbes: LoadedRttProbes(intervalMs: 5, flow: .separate)))
        let cell = makeCell(payload: nil, probes: 3, seconds: 30)
        let server = try await plugin.startServer(cell)
        let start = MonotonicClock.now()
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.rttLoadedNanos == nil && m.rttNanos.count == 3)
        #expect(MonotonicClock.elapsed(since: start) < 10_000_000_000, "ended with the session, not at the 30 s deadline")
    }
}
