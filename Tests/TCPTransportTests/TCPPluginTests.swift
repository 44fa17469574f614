import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import TCPTransport

#if canImport(Glibc)
    import Glibc
#endif

@Suite("TCP plugin on loopback", .timeLimit(.minutes(3)))
struct TCPPluginTests {
    @Test(
        "full workload: exact counts, no loss, one RTT per probe, TCP_INFO recorded",
        arguments: [
            Payload(count: 1000, size: 4096), Payload(count: 3, size: 1), Payload(count: 20, size: 300_000),
        ])
    func workload(payload: Payload) async throws {
        let cell = makeCell(payload: payload, probes: 25)
        let plugin = TCPPlugin()
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()

        #expect(m.status == .ok)
        #expect(m.error == nil)
        #expect(m.rttNanos.count == 25)
        #expect(m.probesSent == 25)
        #expect(m.rttNanos.allSatisfy { $0 > 0 && $0 < 1_000_000_000 })
        #expect((m.connectNanos ?? 0) > 0)
        #expect((m.bulkNanos ?? 0) > 0)
        let d = try #require(m.delivery)
        #expect(
            d
                == Delivery(
                    sentMessages: payload.count, receivedMessages: payload.count,
                    sentBytes: payload.count * payload.size, receivedBytes: payload.count * payload.size))
        #expect(d.lossRatio == 0)
        let tcp = try #require(m.extra["tcp"]?.objectValue)
        for key in [
            "retransmits", "lost", "rtt_us", "rttvar_us", "snd_cwnd", "snd_mss", "pmtu", "segs_out", "segs_in", "bytes_acked", "bytes_retrans",
            "delivery_rate_bps",
        ] {
            #expect(tcp[key]?.doubleValue != nil, "extra.tcp.\(key) missing")
        }
        // Every payload byte (plus framing) was acknowledged before the report came back.
        #expect(Int(tcp["bytes_acked"]?.doubleValue ?? 0) >= payload.count * payload.size)
        #expect((tcp["segs_out"]?.doubleValue ?? 0) > 0)
    }

    @Test("no payload: probes only, no delivery")
    func probesOnly() async throws {
        let cell = makeCell(payload: nil, probes: 5)
        let plugin = TCPPlugin()
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.rttNanos.count == 5)
        #expect(m.delivery == nil)
        #expect(m.bulkNanos == nil)
    }

    @Test("noDelay and keepAlive options are set on the socket", arguments: [false, true])
    func socketOptions(noDelay: Bool) throws {
        let options = TCPOptions(noDelay: noDelay, keepAlive: TCPKeepAlive(enabled: true, idleSeconds: 7, intervalSeconds: 3, count: 4))
        let s = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try options.apply(to: s)
        let tcp = Int32(IPPROTO_TCP)
        #expect(try s.getOption(tcp, TCP_NODELAY, as: Int32.self, initial: -1, "TCP_NODELAY") == (noDelay ? 1 : 0))
        #expect(try s.getOption(SOL_SOCKET, SO_KEEPALIVE, as: Int32.self, initial: -1, "SO_KEEPALIVE") == 1)
        #expect(try s.getOption(tcp, TCP_KEEPIDLE, as: Int32.self, initial: -1, "TCP_KEEPIDLE") == 7)
        #expect(try s.getOption(tcp, TCP_KEEPINTVL, as: Int32.self, initial: -1, "TCP_KEEPINTVL") == 3)
        #expect(try s.getOption(tcp, TCP_KEEPCNT, as: Int32.self, initial: -1, "TCP_KEEPCNT") == 4)

        let off = TCPOptions(noDelay: noDelay, keepAlive: TCPKeepAlive(enabled: false, idleSeconds: 7, intervalSeconds: 3, count: 4))
        try off.apply(to: s)
        #expect(try s.getOption(SOL_SOCKET, SO_KEEPALIVE, as: Int32.self, initial: -1, "SO_KEEPALIVE") == 0)
    }

    @Test("matrix options are read, defaulted and recorded")
    func optionsFromMatrix() throws {
        let reader = try PluginOptions(
            ["noDelay": true, "keepAlive": ["idleSeconds": 9, "count": 3]], path: JSONPath.root.key("transports").index(0).key("options"))
        let plugin = try TCPPlugin(options: reader)
        try reader.finish()
        #expect(plugin.options == TCPOptions(noDelay: true, keepAlive: TCPKeepAlive(enabled: true, idleSeconds: 9, intervalSeconds: 1, count: 3)))
        #expect(reader.effectiveJSON["keepAlive"]?["intervalSeconds"] == 1)
        #expect(reader.effectiveJSON["noDelay"] == true)
    }

    @Test(
        "a bad option names its JSON path",
        arguments: [
            (["keepAlive": ["idleSeconds": 0]] as JSONValue, "$.transports[0].options.keepAlive.idleSeconds"),
            (["keepAlive": ["count": 500]] as JSONValue, "$.transports[0].options.keepAlive.count"),
            (["noDelay": "yes"] as JSONValue, "$.transports[0].options.noDelay"),
            (["keepAlive": true] as JSONValue, "$.transports[0].options.keepAlive"),
        ])
    func badOption(options: JSONValue, path: String) throws {
        let reader = try PluginOptions(options, path: JSONPath.root.key("transports").index(0).key("options"))
        let error = #expect(throws: InputError.self) { _ = try TCPPlugin(options: reader) }
        #expect(error?.problems.first?.path == path)
    }

    @Test("messages over 64 MiB are rejected, naming the size")
    func oversize() {
        let path = JSONPath.root.key("matrix").key("payloads").key("sizes").index(0)
        #expect(TCPPlugin().check(payload: Payload(count: 1, size: 64 << 20), path: path).isEmpty)
        let problems = TCPPlugin().check(payload: Payload(count: 1, size: (64 << 20) + 1), path: path)
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("67108865") == true)
        #expect(problems.first?.path == "$.matrix.payloads.sizes[0]")
    }

    @Test("a receive deadline ends a session even without cancellation")
    func deadline() async throws {
        let cell = makeCell(payload: nil, probes: 1, seconds: 0.5)
        let silent = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try silent.bind(SocketAddress(host: "127.0.0.1", port: 0))
        try silent.listen()
        let address = try silent.localAddress()
        let (error, nanos) = await timedOnThread { _ = try TCPClient.run(cell, server: address, options: TCPOptions()) }
        #expect((error as? TransportError)?.description.contains("timed out") == true, "\(String(describing: error))")
        #expect(nanos < 1_500_000_000)
    }
}
