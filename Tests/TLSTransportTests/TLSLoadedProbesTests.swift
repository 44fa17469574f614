import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchWorkloads
import TLSTransport
import Testing
import TransportTestSupport

/// The receiver's bulk series and loaded probes through TLS: the probes' frames share
/// the encrypted stream with the data, read by a second thread on the same session.
@Suite struct TLSLoadedProbesTests {
    @Test func bulkSeriesSumsToTheReportedBytes() async throws {
        let plugin = TLSPlugin(TLSOptions(noDelay: true))
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 2_000, size: 4_096))
        let series = try #require(m.bulkSeries)
        #expect(series.bytes.reduce(0, +) == 8_192_000)
        #expect(series.datagrams == nil)
        #expect(Double(series.bytes.count) <= Double(m.bulkNanos ?? 0) / 1e8 + 1)
        #expect(m.rttLoadedNanos == nil)
    }

    @Test func loadedProbesAreAnsweredOnTheSameStream() async throws {
        var options = TLSOptions(noDelay: true)
        options.loadedRttProbes = LoadedRttProbes(intervalMs: 2)
        let plugin = TLSPlugin(options)
        // 64 MB: long enough on loopback for several 2 ms intervals even on a fast machine.
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 4_000, size: 16_384))
        #expect(m.status == .ok)
        #expect(m.delivery?.receivedBytes == 65_536_000)
        let loaded = try #require(m.rttLoadedNanos)
        let bulkMs = Double(m.bulkNanos ?? 0) / 1e6
        #expect(loaded.count >= 3 && Double(loaded.count) <= bulkMs / 2 + 1, "\(loaded.count) probes in \(bulkMs) ms")
        #expect(loaded.allSatisfy { $0 > 0 && $0 < UInt64(bulkMs * 1e6) })
    }
}
