import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import TLSTransport

/// TLS shares the stream workload with TCP (TCPVanishedServerTests): a server that
/// goes away mid-bulk, leaving nothing unread, ends the client at once, through GnuTLS.
@Suite struct TLSVanishedServerTests {
    @Test(
        "a server that shuts down mid-bulk and leaves nothing unread ends the client at once, with or without loaded probes",
        arguments: [nil, LoadedRttProbes(intervalMs: 5)])
    func vanishedServer(probes: LoadedRttProbes?) async throws {
        var options = TLSOptions(noDelay: true)
        options.loadedRttProbes = probes
        let cell = makeCell(payload: Payload(count: 400_000, size: 4096), probes: 3, seconds: 20)
        let serverOptions = TLSOptions(noDelay: true)
        let server = try VanishingStreamServer(greeting: nil, probes: 3) { socket in
            let credentials = try TLSCredentials.server(serverOptions, files: try TLSFiles(serverOptions))
            let session = try TLSSession(server: socket, credentials: credentials)
            try session.handshake()
            return session
        }
        let start = MonotonicClock.now()
        await #expect { _ = try await TLSPlugin(options).runClient(cell, server: server.address) } throws: { error in
            "\(error)".contains("tls client: the server closed the connection during the bulk phase")
        }
        let seconds = Double(MonotonicClock.elapsed(since: start)) / 1e9
        // As for TCP: a 0.5 s stall, then the FIN; 5 s is room for a loaded machine.
        #expect(seconds < 5, "ended after \(seconds) s of a 20 s cell")
        try server.finish()
    }
}
