import PeerBenchCore
import PeerBenchPlugin
import PeerBenchWorkloads
import TLSTransport
import Testing
import TransportTestSupport

/// Loaded probes on a separate TLS connection (`loadedRttProbes.flow` `separate`), over loopback.
@Suite struct TLSSeparateFlowTests {
    @Test("tls: probes on a second TLS connection (its own handshake) while the first carries 64 MB")
    func tls() async throws {
        var options = TLSOptions(noDelay: true)
        options.loadedRttProbes = LoadedRttProbes(intervalMs: 2, flow: .separate)
        let plugin = TLSPlugin(options)
        let cell = makeCell(payload: Payload(count: 4_000, size: 16_384), probes: 5, seconds: 60)
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.delivery?.receivedBytes == 65_536_000)
        let loaded = try #require(m.rttLoadedNanos)
        let bulkMs = Double(m.bulkNanos ?? 0) / 1e6
        #expect(loaded.count >= 3 && Double(loaded.count) <= 1.5 * bulkMs / 2 + 5, "\(loaded.count) probes in \(bulkMs) ms")
        #expect(loaded.allSatisfy { $0 > 0 && $0 < UInt64(bulkMs * 1e6) })
        #expect(m.rttNanos.count == 5, "the idle probes stay on the first connection")
    }

}
