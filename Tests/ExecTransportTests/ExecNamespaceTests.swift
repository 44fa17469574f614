import ExecTransport
import Foundation
import Logging
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing
import TransportTestSupport

/// Two network namespaces joined by a veth pair (no emulation): enough to show the
/// exec plugin runs each command inside its own endpoint, as on an emulated link.
final class VethTestbed: Testbed {
    let client = NetworkNamespace(name: "pbx-c-\(getpid())")
    let server = NetworkNamespace(name: "pbx-s-\(getpid())")
    static let clientAddress = "10.203.7.1", serverAddress = "10.203.7.2"

    init() throws {
        let c = client.name, s = server.name
        try Self.sh(
            """
            ip netns add \(c) && ip netns add \(s) &&
            ip link add pbx-veth-c netns \(c) type veth peer name pbx-veth-s netns \(s) &&
            ip -n \(c) addr add \(Self.clientAddress)/30 dev pbx-veth-c && ip -n \(s) addr add \(Self.serverAddress)/30 dev pbx-veth-s &&
            ip -n \(c) link set pbx-veth-c up && ip -n \(s) link set pbx-veth-s up &&
            ip -n \(c) link set lo up && ip -n \(s) link set lo up
            """)
    }

    var mode: LinkMode { .none }
    func configure(_ link: ResolvedLink, seed: UInt64) async throws -> (client: Endpoint, server: Endpoint) {
        (Endpoint(address: Self.clientAddress, namespace: client), Endpoint(address: Self.serverAddress, namespace: server))
    }
    func counters() -> LinkCounters? { nil }
    func shutdown() async { remove() }

    /// Deletes both namespaces (and with them the veth pair); safe to call twice.
    func remove() {
        try? Self.sh("ip netns del \(client.name) 2>/dev/null; ip netns del \(server.name) 2>/dev/null; true")
    }

    static func sh(_ script: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TransportError("setting up namespaces failed: \(script)") }
    }
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct ExecNamespaceTests {
    static let isRoot = getuid() == 0

    @Test(.enabled(if: isRoot, "needs root for ip netns"))
    func commandsRunInsideTheirEndpointsNamespace() async throws {
        let testbed = try VethTestbed()
        defer { testbed.remove() }
        let transports = """
            [\(IperfTransportTests.transport("iperf3-tcp", "--tcp")),
             {"plugin": "exec", "label": "where", "options": {"client": ["sh", "-c", "printf '{\\"extra\\": {\\"netns\\": \\"%s\\"}}' \\"$(ip netns identify $$)\\""]}}]
            """
        let records = try await runMatrix(
            [ExecPlugin.self], transports: transports, counts: "[500]", probes: 10,
            testbed: testbed)
        #expect(records.count == 2)
        // iperf3-peer bound to 10.203.7.2, which exists only inside the server namespace,
        // and reached it from the client namespace.
        #expect(records[0]["status"] == "ok", "\(records[0]["error"] ?? .null)")
        #expect(records[0]["extra"]?["iperf3"]?["command"]?.stringValue?.contains("-c \(VethTestbed.serverAddress)") == true)
        #expect(records[0]["delivery"]?["sent_bytes"] == 512_000)
        #expect(records[0]["delivery"]?["received_messages"] == 500)
        #expect(records[1]["extra"]?["netns"] == .string(testbed.client.name))
    }
}
