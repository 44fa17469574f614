import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import TLSTransport
import Testing
import TransportTestSupport

/// tls's `congestionControl`: TCP_CONGESTION under the TLS session, read back into
/// the record's `congestion_control` (as tcp's, TCPCongestionControlTests).
@Suite(.timeLimit(.minutes(2))) struct TLSCongestionControlTests {
    @Test(arguments: ["reno", "cubic"]) func theControllerAskedForRunsUnderTLS(name: String) async throws {
        var options = TLSOptions()
        options.congestionControl = name
        let plugin = TLSPlugin(options)
        let m = try await runCell(server: plugin, client: plugin, payload: Payload(count: 50, size: 4_096), probes: 3)
        #expect(m.status == .ok)
        #expect(m.congestionControl == name)
    }

    @Test func unsetTheRecordSaysTheHostsDefault() async throws {
        let plugin = TLSPlugin(TLSOptions())
        let m = try await runCell(server: plugin, client: plugin, payload: nil, probes: 3)
        let host = try String(contentsOfFile: "/proc/sys/net/ipv4/tcp_congestion_control", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(m.congestionControl == host)
    }

    @Test func aMalformedNameIsRefusedByJSONPath() throws {
        #expect {
            _ = try TLSOptions(PluginOptions(["congestionControl": "Cubic"], path: JSONPath.root.key("transports").index(1).key("options")))
        } throws: { error in
            "\(error)".contains("$.transports[1].options.congestionControl: expected a congestion controller's name")
        }
    }
}
