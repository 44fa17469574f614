import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import TLSTransport
import Testing
import TransportTestSupport

@Suite(.timeLimit(.minutes(3))) struct TLSPluginTests {
    @Test func certificateSessionCompletesProbesAndBulk() async throws {
        let plugin = TLSPlugin(TLSOptions(noDelay: true))
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 2_000, size: 4_096), probes: 25)
        #expect(m.status == .ok)
        #expect(m.rttNanos.count == 25)
        #expect(m.probesSent == 25)
        let median = m.rttNanos.sorted()[12]
        #expect(median > 1_000 && median < 20_000_000, "loopback probe RTT through TLS: \(median) ns")
        #expect(m.delivery == Delivery(sentMessages: 2_000, receivedMessages: 2_000, sentBytes: 8_192_000, receivedBytes: 8_192_000))
        let bulk = try #require(m.bulkNanos)
        let mbps = 8_192_000.0 * 8 / (Double(bulk) / 1e9) / 1e6
        #expect(mbps > 100, "AES-GCM on loopback moves well over 100 Mbit/s: \(mbps)")
        let connect = try #require(m.connectNanos)
        #expect(connect > 10_000 && connect < 1_000_000_000, "TCP connect + TLS 1.3 handshake: \(connect) ns")
        let tls = try #require(m.extra["tls"])
        #expect(tls["version"] == "TLS1.3")
        #expect(tls["authentication"] == "x509")
        #expect(tls["cipher"]?.stringValue?.isEmpty == false)
        #expect((tls["handshake_ms"]?.doubleValue ?? 0) > 0)
    }

    @Test func preSharedKeySessionNeedsNoCertificates() async throws {
        var options = TLSOptions()
        options.psk = TLSOptions.PreSharedKey(hex: "00112233445566778899aabbccddeeff")
        options.caFile = "/nonexistent/ca.pem"  // never read in PSK mode
        let plugin = TLSPlugin(options)
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 100, size: 128))
        #expect(m.rttNanos.count == 10)
        #expect(m.delivery?.receivedMessages == 100)
        #expect(m.extra["tls"]?["authentication"] == "psk")
        #expect(m.extra["tls"]?["version"] == "TLS1.3")
    }

    @Test func mismatchedPreSharedKeysFailTheHandshake() async throws {
        let server = TLSPlugin(TLSOptions(psk: .init(hex: String(repeating: "11", count: 16))))
        let client = TLSPlugin(TLSOptions(psk: .init(hex: String(repeating: "22", count: 16))))
        await #expect {
            _ = try await runCell(server: server, client: client, payload: Payload(count: 1, size: 16))
        } throws: { error in
            "\(error)".hasPrefix("tls client: handshake failed") && "\(error)".contains("do both sides hold the same key and identity?")
        }
    }

    @Test func unknownCAFailsCleanly() async throws {
        let foreign = try makeForeignCA()
        let transports = """
            [{"plugin": "tls", "label": "foreign-ca", "options": {"caFile": "\(foreign)"}},
             {"plugin": "tls", "label": "wrong-name", "options": {"serverName": "wrong.example"}},
             {"plugin": "tls", "label": "good"}]
            """
        let records = try await runMatrix([TLSPlugin.self], transports: transports, counts: "[100]", sizes: "[128]", probes: 5)
        #expect(records.map { $0["status"] } == ["failed", "failed", "ok"])
        let e0 = records[0]["error"]?.stringValue ?? ""
        #expect(
            e0 == "tls client: the server's certificate does not verify: unknown CA: the server's certificate was not issued by a CA in \(foreign)",
            "\(e0)")
        let e1 = records[1]["error"]?.stringValue ?? ""
        #expect(
            e1
                == #"tls client: the server's certificate does not verify: name mismatch: the server's certificate does not name "wrong.example" (set serverName)"#,
            "\(e1)")
        // The bundled certificate names localhost too: verification by DNS name (with SNI) works.
        #expect(records[2]["rtt_ms"]?["count"] == 5)
        #expect(records[2]["delivery"]?["loss_ratio"] == 0)
    }

    @Test func serverNameLocalhostVerifies() async throws {
        let plugin = TLSPlugin(TLSOptions(serverName: "localhost"))
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 10, size: 1_000))
        #expect(m.delivery?.receivedBytes == 10_000)
    }

    @Test func badOptionsAreRejectedWithTheirPath() throws {
        let registry = PluginRegistry([TLSPlugin.self])
        #expect {
            _ = try registry.make("tls", options: ["psk": "xyz"], path: JSONPath.root.key("transports").index(0))
        } throws: { error in
            "\(error)".contains("$.transports[0].options.psk") && "\(error)".contains("hex digits")
        }
        #expect {
            _ = try registry.make("tls", options: ["psk": "0011"], path: JSONPath.root.key("transports").index(0))
        } throws: { error in
            "\(error)".contains("at least 16 bytes")
        }
    }
}
