import PeerBenchCore
import PeerBenchPlugin
import QUICTransport
import Testing

/// On loopback every probe and the handshake measure the path and QUIC's own work,
/// never one of our waits or a protocol timer (issue 13 §1). The artifact this
/// guards against: ngtcp2 0.12 paced the first flights at cwnd / 333 ms (its RTT
/// before any sample), so the client's Finished and first probe, and the server's
/// HANDSHAKE_DONE, waited ~20 ms: one probe per cell at 21 ms and
/// `handshake_confirmed_ms` near 25 ms against a 0.07 ms round trip.
@Suite(.serialized, .timeLimit(.minutes(2))) struct QUICLatencyTests {
    /// Below the ~20 ms pacing wait and ngtcp2's 25 ms max_ack_delay, with room for a
    /// loaded machine (at a load average of 23 on 2 cores single probes took 10-30 ms
    /// at random); far above loopback's round trip (tens of microseconds).
    static let bound: UInt64 = 15_000_000

    struct Cell {
        var rtts: [UInt64]
        var completedMs: Double
        var confirmedMs: Double
    }

    func runCell() async throws -> Cell {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: Payload(count: 10, size: 1000), rttProbes: 100)
        let server = try await plugin.startServer(cell)
        let m: TransportMeasurement
        do {
            m = try await withTimeout(30) { try await plugin.runClient(cell, server: server.address) }
            try await server.finish()
        } catch {
            server.stop()
            throw error
        }
        let quic = try #require(m.extra["quic"]?.objectValue)
        return Cell(
            rtts: m.rttNanos, completedMs: try #require(quic["handshake_completed_ms"]?.doubleValue),
            confirmedMs: try #require(quic["handshake_confirmed_ms"]?.doubleValue))
    }

    /// Seven cells, judged by their median: a scheduling hiccup of the shared machine
    /// spoils a cell now and then, the artifact spoiled every cell (before the fix
    /// each cell's slowest probe was 18-23 ms and confirmation came 21-25 ms after completion).
    @Test func probesAndHandshakeStayNearTheRoundTrip() async throws {
        var cells: [Cell] = []
        for _ in 0..<7 { cells.append(try await runCell()) }
        #expect(cells.allSatisfy { $0.rtts.count == 100 })
        let maxima = cells.map { Double($0.rtts.max() ?? .max) / 1e6 }.sorted()
        let p50s = cells.map { c in Double(c.rtts.sorted()[c.rtts.count / 2]) / 1e6 }
        let confirmation = cells.map { $0.confirmedMs - $0.completedMs }.sorted()
        let bound = Double(Self.bound) / 1e6
        let slowest = cells.map { c in c.rtts.indices.max { c.rtts[$0] < c.rtts[$1] } ?? -1 }
        #expect(maxima[3] < bound, "slowest probe per cell \(maxima) ms (p50s \(p50s) ms; slowest probe's index per cell \(slowest))")
        #expect(confirmation[3] < bound, "handshake confirmed after completion per cell \(confirmation) ms")
        #expect(cells.map(\.confirmedMs).sorted()[3] < 2 * bound, "handshake_confirmed_ms per cell \(cells.map(\.confirmedMs))")
    }
}
