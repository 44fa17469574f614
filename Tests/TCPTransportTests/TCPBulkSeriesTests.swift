import PeerBenchCore
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TCPTransport

/// The receiver's series over loopback: bounded by time, not by messages.
@Suite struct TCPBulkSeriesTests {
    @Test("100 000 messages of 128 B: the series has one entry per 100 ms of bulk, not per message, and sums to 12.8 MB")
    func manyMessages() async throws {
        let cell = makeCell(payload: Payload(count: 100_000, size: 128), probes: 3)
        let plugin = TCPPlugin()
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        let series = try #require(m.bulkSeries)
        #expect(series.bytes.reduce(0, +) == 12_800_000)
        #expect(series.intervalNanos == 100_000_000)
        #expect(
            Double(series.bytes.count) <= Double(m.bulkNanos ?? 0) / 1e8 + 1, "\(series.bytes.count) entries in \(Double(m.bulkNanos ?? 0) / 1e9) s")
        // The REPORT carried 28 + 8 bytes per entry, whatever the message count.
        #expect(StreamReport(messages: 100_000, bytes: 12_800_000, series: series).frame().count == 5 + 28 + 8 * series.bytes.count)
    }

    @Test("a version-1 HELLO is refused: the REPORT layout changed in version 2")
    func versionTwo() {
        #expect(TCPHello.version == 2)
        let v1 = Array("PBTC".utf8) + [0, 1, 0, 0]
        #expect(!v1.withUnsafeBytes { TCPHello.isHello($0) })
    }

    @Test("loaded probes: a server that goes away mid-bulk ends the cell with an error at once, not at the deadline")
    func serverGoesAwayWithLoadedProbes() async throws {
        // 16 GB, so the bulk is still running when the server stops at 0.3 s: loopback
        // here carries the 1.6 GB this test once sent in 0.24 s, and the client then
        // finished cleanly before the stop (the project CI on 8846049).
        let cell = makeCell(payload: Payload(count: 4_000_000, size: 4096), probes: 3, seconds: 30)
        let plugin = TCPPlugin(TCPOptions(loadedRttProbes: LoadedRttProbes(intervalMs: 5)))
        let server = try await plugin.startServer(cell)
        after(milliseconds: 300) { server.stop() }
        let start = MonotonicClock.now()
        await #expect { _ = try await plugin.runClient(cell, server: server.address) } throws: { error in
            "\(error)".contains("tcp client: the server closed the connection during the bulk phase")
        }
        let seconds = Double(MonotonicClock.elapsed(since: start)) / 1e9
        #expect(seconds < 10, "ended after \(seconds) s of a 30 s cell")
    }
}
