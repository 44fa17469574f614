import ExecTransport
import PeerBenchCore
import QUICTransport
import TCPTransport
import TLSTransport
import Testing
import TransportTestSupport
import UDPTransport
import UWBRanging

/// Every registered plugin keeps the plugin contract (TransportTestSupport's
/// `PluginContract`): exact counts, cancel within the grace, a server stopped before
/// its client, bad options named, every record key present.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BuiltInPluginContractTests {
    static let peers = packageRoot + "/Tests/PluginContractTests/Peers"

    static let contracts: [String: PluginContract] = [
        "tcp": PluginContract(TCPPlugin.self, options: #"{"noDelay": true}"#, badOption: ("noDelay", #""yes""#), congestionControlled: true),
        "udp": PluginContract(UDPPlugin.self, options: #"{"rateMbps": 200}"#, badOption: ("rateMbps", "0")),
        "tls": PluginContract(TLSPlugin.self, badOption: ("noDelay", "1"), congestionControlled: true),
        // A handshake timeout inside the 20 s cell: with the default (30 s) a client whose
        // server is gone waits out the whole cell.
        "quic": PluginContract(
            QUICPlugin.self, options: #"{"handshakeTimeoutSeconds": 5}"#, badOption: ("streams", #""many""#), congestionControlled: true),
        // uwb and exec cannot pipeline: they ping-pong and the record says so.
        "uwb": PluginContract(UWBPlugin.self, options: #"{"durationSeconds": 1}"#, badOption: ("updateRateHz", "0"), pipelines: false),
        "exec": PluginContract(
            ExecPlugin.self,
            options: #"{"server": ["./stream_peer.py", "server"], "client": ["./stream_peer.py", "client"], "workingDirectory": "\#(peers)"}"#,
            badOption: ("client", "[]"),
            // A client that never finishes by itself.
            silentOptions: #"{"client": ["sleep", "60"]}"#, pipelines: false, measuresCPU: false),
    ]

    @Test(arguments: ["tcp", "udp", "tls", "quic", "uwb", "exec"])
    func keepsThePluginContract(_ plugin: String) async throws {
        try await #require(Self.contracts[plugin]).checkAll()
    }
}
