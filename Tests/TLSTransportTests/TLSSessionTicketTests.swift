import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchWorkloads
import TLSTransport
import Testing
import TransportTestSupport

/// `sessionTickets` over loopback: the priming connection fetches a ticket, the
/// measured connection resumes (GnuTLS says so), and the workload is unchanged.
@Suite struct TLSSessionTicketTests {
    func options(_ tickets: Bool) -> TLSOptions {
        var o = TLSOptions(noDelay: true)
        o.sessionTickets = tickets
        return o
    }

    @Test("with sessionTickets the measured connection resumes the priming connection's session")
    func resumes() async throws {
        let plugin = TLSPlugin(options(true))
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 100, size: 16_384), probes: 5)
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        let tls = try #require(m.extra["tls"]?.objectValue)
        #expect(tls["resumed"] == .bool(true))
        #expect((tls["priming_connect_ms"]?.doubleValue ?? 0) > 0, "\(tls)")
        #expect(m.rttNanos.count == 5)
        #expect(m.delivery?.receivedBytes == 1_638_400)
    }

    @Test("without sessionTickets: no priming connection, nothing resumed, and the record says nothing of it")
    func offByDefault() async throws {
        let plugin = TLSPlugin(options(false))
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 10, size: 1_000), probes: 2)
        #expect(m.status == .ok)
        #expect(m.resumed == nil)
        let tls = try #require(m.extra["tls"]?.objectValue)
        #expect(tls["resumed"] == nil && tls["priming_connect_ms"] == nil)
    }

    @Test("a server without tickets: the client's priming connection fails, saying why")
    func serverWithoutTickets() async throws {
        await #expect {
            _ = try await runCell(server: TLSPlugin(options(false)), client: TLSPlugin(options(true)), payload: nil, probes: 1)
        } throws: { error in
            "\(error)".contains("the server sent no session ticket on the priming connection")
        }
    }

    @Test("with a separate probe flow too: the server serves three connections (priming, measured, probe flow)")
    func separateFlow() async throws {
        var o = options(true)
        o.loadedRttProbes = LoadedRttProbes(intervalMs: 5, flow: .separate)
        let plugin = TLSPlugin(o)
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 2_000, size: 16_384), probes: 3)
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        #expect((m.rttLoadedNanos?.count ?? 0) >= 1)
    }

    @Test("with a pre-shared key instead of certificates the session resumes too")
    func withPSK() async throws {
        var o = options(true)
        o.psk = TLSOptions.PreSharedKey(hex: "00112233445566778899aabbccddeeff")
        let plugin = TLSPlugin(o)
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 10, size: 1_000), probes: 2)
        #expect(m.status == .ok)
        #expect(m.resumed == true)
        #expect(m.extra["tls"]?.objectValue?["authentication"] == .string("psk"))
    }

    @Test("sessionTickets is read from the matrix and must be a bool")
    func option() throws {
        let on = try TLSPlugin(options: PluginOptions(.object(JSONObject(["sessionTickets": .bool(true)])), path: .root))
        #expect(on.options.sessionTickets)
        #expect(throws: InputError.self) {
            try TLSPlugin(options: PluginOptions(.object(JSONObject(["sessionTickets": .string("yes")])), path: .root))
        }
        #expect(TLSPlugin.descriptor.options.contains { $0.key == "sessionTickets" })
    }
}
