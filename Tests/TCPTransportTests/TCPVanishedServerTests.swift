import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TCPTransport

/// A server that goes away mid-bulk without its kernel resetting the connection
/// (`VanishingStreamServer`): the client's writer is blocked in send() on a full
/// window that will never open, so the client must notice the server's FIN itself.
/// Before the fix both cases ended only after 41 s of a 20 s cell ("send failed:
/// Resource temporarily unavailable": the send timeout, restarted by a partial write).
@Suite struct TCPVanishedServerTests {
    @Test(
        "a server that shuts down mid-bulk and leaves nothing unread ends the client at once, with or without loaded probes",
        arguments: [nil, LoadedRttProbes(intervalMs: 5)])
    func vanishedServer(probes: LoadedRttProbes?) async throws {
        let cell = makeCell(payload: Payload(count: 400_000, size: 4096), probes: 3, seconds: 20)
        let server = try VanishingStreamServer(greeting: TCPHello.frame(), probes: 3)
        let plugin = TCPPlugin(TCPOptions(loadedRttProbes: probes))
        let start = MonotonicClock.now()
        await #expect { _ = try await plugin.runClient(cell, server: server.address) } throws: { error in
            "\(error)".contains("tcp client: the server closed the connection during the bulk phase")
        }
        let seconds = Double(MonotonicClock.elapsed(since: start)) / 1e9
        // The server stalls 0.5 s, then its FIN arrives at once on loopback: 5 s is
        // room for a loaded machine, and a quarter of the cell.
        #expect(seconds < 5, "ended after \(seconds) s of a 20 s cell")
        try server.finish()
    }
}
