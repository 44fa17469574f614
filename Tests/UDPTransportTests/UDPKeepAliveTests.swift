import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import UDPTransport

#if canImport(Glibc)
    import Glibc
#endif

/// The `keepAlive` option: parsing, the clock's arithmetic, and on loopback through a
/// relay that goes silent, that the client declares its peer lost on time.
@Suite("UDP keepalive", .serialized, .timeLimit(.minutes(2)))
struct UDPKeepAliveTests {
    static let optionsPath = JSONPath.root.key("transports").index(2).key("options")

    func plugin(_ options: JSONValue?) throws -> (UDPPlugin, PluginOptions) {
        let reader = try PluginOptions(options, path: Self.optionsPath)
        let plugin = try UDPPlugin(options: reader)
        try reader.finish()
        return (plugin, reader)
    }

    @Test("keepAlive {intervalMs, missed} is read, recorded and sets the dead-peer timeout")
    func parsed() throws {
        let (p, reader) = try plugin(["keepAlive": ["intervalMs": 250, "missed": 4]])
        #expect(p.options.keepAlive == UDPKeepAlive(intervalMs: 250, missed: 4))
        #expect(p.deadPeerTimeoutSeconds == 1.0)
        #expect(reader.effectiveJSON["keepAlive"]?["intervalMs"] == 250)
        let (d, _) = try plugin(["keepAlive": [:]])
        #expect(d.options.keepAlive == UDPKeepAlive(intervalMs: 500, missed: 3), "an empty object is the documented default")
        #expect(d.deadPeerTimeoutSeconds == 1.5)
    }

    @Test("absent = off: no dead-peer timeout and nothing new in the effective options (cell ids stay)")
    func absent() throws {
        let (p, reader) = try plugin(nil)
        #expect(p.options.keepAlive == nil)
        #expect(p.deadPeerTimeoutSeconds == nil)
        #expect(reader.effectiveJSON["keepAlive"] == nil)
    }

    @Test(
        "bad keepAlive input names its JSON path",
        arguments: [
            (["keepAlive": ["intervalMs": 0]] as JSONValue, "$.transports[2].options.keepAlive.intervalMs"),
            (["keepAlive": ["intervalMs": "often"]] as JSONValue, "$.transports[2].options.keepAlive.intervalMs"),
            (["keepAlive": ["missed": 0]] as JSONValue, "$.transports[2].options.keepAlive.missed"),
            (["keepAlive": 500] as JSONValue, "$.transports[2].options.keepAlive"),
        ])
    func badInput(options: JSONValue, path: String) throws {
        let reader = try PluginOptions(options, path: Self.optionsPath)
        let error = #expect(throws: InputError.self) { _ = try UDPPlugin(options: reader) }
        #expect(error?.problems.first?.path == path)
    }

    @Test("the clock: one KEEPALIVE per interval, lost after missed x interval of silence, reset by an answer")
    func clock() {
        var c = UDPKeepAliveClock(UDPKeepAlive(intervalMs: 100, missed: 3), start: 1_000_000_000)
        #expect(c.takeDue(now: 1_050_000_000) == nil)
        #expect(c.takeDue(now: 1_100_000_000) == 0)
        #expect(c.takeDue(now: 1_150_000_000) == nil)
        #expect(c.takeDue(now: 1_200_000_000) == 1)
        #expect(!c.isLost(now: 1_299_000_000))
        #expect(c.isLost(now: 1_300_000_000))
        c.heard(at: 1_250_000_000)
        #expect(!c.isLost(now: 1_300_000_000))
        #expect(c.lostAt == 1_550_000_000)
        #expect(c.nanosUntilNext(now: 1_250_000_000) == 50_000_000, "the next KEEPALIVE (1.3 s) comes before the verdict")
        // A sender 1 s late sends one KEEPALIVE, not ten.
        #expect(c.takeDue(now: 2_300_000_000) == 2)
        #expect(c.takeDue(now: 2_310_000_000) == nil)
    }

    @Test("answered keepalives through a whole paced cell: it completes and counts them")
    func answered() async throws {
        let (p, _) = try plugin(["keepAlive": ["intervalMs": 50, "missed": 3], "rateMbps": 8])
        let cell = makeCell(payload: Payload(count: 100, size: 10_000), probes: 2, seconds: 30)  // 1 s at 8 Mbit/s
        let server = try await p.startServer(cell)
        let relay = try LossyRelay(server: server.address, drop: { _, _, _ in false })
        defer { relay.close() }
        let m = try await p.runClient(cell, server: relay.address)
        try await server.finish()
        #expect(m.delivery?.receivedMessages == 100)
        let sent = m.extra["udp"]?["keepalives_sent"]?.intValue ?? 0
        #expect(sent >= 10 && sent <= 60, "about one per 50 ms of a 1 s bulk phase: \(sent)")
    }

    @Test("the server goes silent mid-bulk: the client declares the peer lost after ~missed x interval")
    func silentPeer() async throws {
        let (p, _) = try plugin(["keepAlive": ["intervalMs": 100, "missed": 3], "rateMbps": 4])
        let cell = makeCell(payload: Payload(count: 200, size: 10_000), probes: 2, seconds: 30)  // 4 s at 4 Mbit/s
        let server = try await p.startServer(cell)
        defer { server.stop() }
        let start = MonotonicClock.now()
        let cut = start + 800_000_000
        // From 0.8 s on nothing comes back from the server (its replies are dropped).
        let relay = try LossyRelay(
            server: server.address, drop: { _, _, _ in false },
            dropReply: { _, _, _ in MonotonicClock.now() >= cut })
        defer { relay.close() }
        let outcome = await timedOnThread {
            _ = try UDPClient.run(cell, server: relay.address, options: p.options)
        }
        let detect = Double(Int64(bitPattern: MonotonicClock.now() &- cut)) / 1e6
        #expect("\(outcome.error.map { "\($0)" } ?? "no error")".contains("peer lost"), "\(String(describing: outcome.error))")
        // The last answer came at most one interval before the cut: 200-300 ms, plus load.
        #expect(detect >= 150 && detect <= 1_500, "detected \(detect) ms after the cut")
        #expect(relay.droppedReplyCount(type: UDPMessageType.keepAliveAck.rawValue) >= 2)
    }
}
