import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import QUICTransport
import Testing

/// Options as `peerbench list` shows them and as matrix.json gives them.
@Suite(.timeLimit(.minutes(1))) struct QUICOptionsTests {
    @Test func descriptorListsEveryOption() {
        let d = QUICPlugin.descriptor
        #expect(d.name == "quic")
        #expect(
            Set(d.options.map(\.key)) == [
                "streams", "congestionControl", "maxStreamWindow", "maxWindow", "handshakeTimeoutSeconds",
                "idleTimeoutSeconds", "caFile", "certFile", "keyFile", "clientCertFile", "clientKeyFile",
                "serverName", "mutualTLS", "loadedRttProbes.intervalMs", "loadedRttProbes.flow",
                "resumption", "zeroRTT", "reconnect", "reconnect.backoffMs", "reconnect.maxBackoffMs",
                "migrate", "migrate.afterPTOs",
            ])
        #expect(d.options.first { $0.key == "loadedRttProbes.flow" }?.type == "same|separate")
    }

    @Test func defaultsResolveTheBundledCertificates() throws {
        let reader = try PluginOptions(JSONValue?.none, path: .root)
        _ = try QUICPlugin(options: reader)
        try reader.finish()
        #expect(reader.effective["caFile"]?.stringValue?.hasSuffix("certs/ca.pem") == true)
        #expect(reader.effective["streams"] == "single")
        #expect(reader.effective["congestionControl"] == "cubic")
    }

    @Test func badValuesNameTheOption() throws {
        #expect { _ = try makePlugin(["congestionControl": "vegas"]) } throws: {
            "\($0)".contains("congestionControl") && "\($0)".contains("\"bbr\"")
        }
        #expect { _ = try makePlugin(["streams": 3]) } throws: { "\($0)".contains("streams") }
        #expect { _ = try makePlugin(["maxWindow": 10]) } throws: { "\($0)".contains("maxWindow") && "\($0)".contains("out of range") }
        #expect { _ = try makePlugin(["streamz": "single"]) } throws: { "\($0)".contains("unknown option \"streamz\"") }
        let path = JSONPath.root.key("transports").index(2).key("options")
        #expect { _ = try QUICPlugin(options: PluginOptions(.object(JSONObject(["zeroRTT": true])), path: path)) } throws: {
            "\($0)" == #"$.transports[2].options.zeroRTT: 0-RTT needs a resumed session: set "resumption": true as well"#
        }
        // reconnect needs the idle timeout, quic's only loss detection, and no loaded probes.
        #expect { _ = try QUICPlugin(options: PluginOptions(.object(JSONObject(["reconnect": true])), path: path)) } throws: {
            "\($0)".hasPrefix("$.transports[2].options.reconnect: reconnect needs idleTimeoutSeconds")
        }
        #expect { _ = try makePlugin(["idleTimeoutSeconds": 2, "reconnect": ["backoffMs": 500, "maxBackoffMs": 100]]) } throws: {
            "\($0)".contains("reconnect.maxBackoffMs") && "\($0)".contains("below backoffMs")
        }
        #expect { _ = try makePlugin(["idleTimeoutSeconds": 2, "reconnect": true, "loadedRttProbes": ["intervalMs": 50]]) } throws: {
            "\($0)".contains("reconnect cannot be combined with loadedRttProbes")
        }
        _ = try makePlugin(["idleTimeoutSeconds": 2, "reconnect": ["backoffMs": 50]])
        #expect { _ = try makePlugin(["loadedRttProbes": ["flow": "aside"]]) } throws: {
            "\($0)".contains("loadedRttProbes.flow") && "\($0)".contains("\"separate\"")
        }
    }

    @Test func reportsLinkedLibraryVersions() {
        let v = QUICPlugin.libraryVersions()
        #expect(v["ngtcp2"]?.hasPrefix("0.12") == true)
        #expect(v["gnutls"]?.hasPrefix("3.") == true)
    }
}
