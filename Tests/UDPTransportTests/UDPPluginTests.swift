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

@Suite("UDP plugin on loopback", .serialized, .timeLimit(.minutes(3)))
struct UDPPluginTests {
    func run(_ plugin: UDPPlugin, _ cell: CellContext) async throws -> TransportMeasurement {
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }

    @Test(
        "full workload: counts, RTTs, jitter and the receiver's report",
        arguments: [
            Payload(count: 2_000, size: 1_400), Payload(count: 300, size: 16_384), Payload(count: 1, size: 128),
        ])
    func workload(payload: Payload) async throws {
        let cell = makeCell(payload: payload, probes: 20)
        let m = try await run(UDPPlugin(), cell)
        #expect(m.status == .ok)
        #expect(m.rttNanos.count == 20)
        #expect(m.probesSent == 20)
        #expect((m.connectNanos ?? 0) > 0)
        #expect((m.bulkNanos ?? 0) > 0)
        let d = try #require(m.delivery)
        // Big socket buffers: nothing is dropped on loopback.
        #expect(
            d
                == Delivery(
                    sentMessages: payload.count, receivedMessages: payload.count,
                    sentBytes: payload.count * payload.size, receivedBytes: payload.count * payload.size))
        if payload.count > 1 { #expect(m.rfc3550JitterMs != nil) }
        let udp = try #require(m.extra["udp"]?.objectValue)
        #expect(udp["datagram_bytes"] == JSONValue(payload.size + 24))
        #expect(udp["end_attempts"] == 1)
        #expect(udp["probes_lost"] == 0)
    }

    @Test("sizes a datagram cannot carry are rejected, naming the size")
    func oversize() {
        let path = JSONPath.root.key("matrix").key("payloads").key("sizes").index(2)
        #expect(UDPPlugin().check(payload: Payload(count: 1, size: 65_483), path: path).isEmpty)
        let problems = UDPPlugin().check(payload: Payload(count: 1, size: 65_484), path: path)
        #expect(problems.count == 1)
        #expect(problems.first?.path == "$.matrix.payloads.sizes[2]")
        #expect(problems.first?.message.contains("65484") == true)
        #expect(problems.first?.message.contains("65483") == true)
    }

    @Test("the largest datagram goes through (fragmentation allowed)")
    func largest() async throws {
        let cell = makeCell(payload: Payload(count: 20, size: 65_483), probes: 1)
        let m = try await run(UDPPlugin(), cell)
        #expect(m.delivery?.receivedMessages == 20)
        #expect(m.delivery?.receivedBytes == 20 * 65_483)
    }

    @Test("pacing holds the requested rate", arguments: [20.0, 80.0])
    func pacing(rate: Double) async throws {
        // Half a second at either rate, so a few milliseconds of scheduling
        // delay on a busy two-core machine stay well inside the tolerance.
        let count = Int(rate * 1e6 * 0.5 / 8_000)
        let cell = makeCell(payload: Payload(count: count, size: 1_000), probes: 3)
        let m = try await run(UDPPlugin(UDPOptions(rateMbps: rate)), cell)
        let d = try #require(m.delivery)
        #expect(d.receivedMessages == count)
        // The sender keeps the schedule tightly (absolute due times; late wake-ups catch up).
        let sendSeconds = try #require(m.extra["udp"]?["send_seconds"]?.doubleValue)
        let sendMbps = Double(count * 1_000 * 8) / sendSeconds / 1e6
        #expect(abs(sendMbps - rate) / rate < 0.05, "sent at \(sendMbps) Mbit/s, asked for \(rate)")
        // Delivered throughput also counts the END/REPORT exchange and the receiver
        // catching up, so it gets more room on a loaded machine.
        let mbps = Double(d.receivedBytes * 8) / Double(try #require(m.bulkNanos)) * 1e3
        #expect(abs(mbps - rate) / rate < 0.2, "delivered at \(mbps) Mbit/s, asked for \(rate)")
        #expect(m.extra["udp"]?["rate_mbps"] == JSONValue(rate))
    }

    @Test("lost data, probes and end markers: counted, and the report still arrives")
    func lossyPath() async throws {
        let cell = makeCell(payload: Payload(count: 1_000, size: 500), probes: 10)
        let plugin = UDPPlugin(UDPOptions(probeTimeoutMs: 100))
        let server = try await plugin.startServer(cell)
        // Drop every 10th DATA datagram, probe 3, and the first two END markers.
        let relay = try LossyRelay(server: server.address) { type, seq, k in
            (type == 0x10 && seq % 10 == 0) || (type == 0x03 && seq == 3) || (type == 0x11 && k < 2)
        }
        defer { relay.close() }
        let m = try await plugin.runClient(cell, server: relay.address)
        try await server.finish()
        let d = try #require(m.delivery)
        #expect(d.sentMessages == 1_000)
        #expect(d.receivedMessages == 900)
        #expect(d.receivedBytes == 900 * 500)
        #expect(abs(d.lossRatio - 0.1) < 1e-9)
        #expect(d.duplicated == 0 && d.reordered == 0)
        #expect(m.probesSent == 10)
        #expect(m.rttNanos.count == 9)
        let udp = try #require(m.extra["udp"]?.objectValue)
        #expect(udp["end_attempts"] == 3)
        #expect(udp["probes_lost"] == 1)
        #expect(relay.droppedCount(type: 0x11) == 2)
    }

    @Test("a fade that swallows the REPORT and 3 s of END retransmissions: the server waits and the report arrives")
    func reportLostInAFade() async throws {
        let cell = makeCell(payload: Payload(count: 100, size: 100), probes: 2, seconds: 30)
        let plugin = UDPPlugin()
        let server = try await plugin.startServer(cell)
        // The first REPORT is lost, then ENDs 1-8: with the client's doubling back-off
        // (capped at 1 s) the ninth END reaches the server about 3.5 s after its REPORT.
        let relay = try LossyRelay(
            server: server.address, drop: { type, _, k in type == 0x11 && (1...8).contains(k) },
            dropReply: { type, _, k in type == 0x12 && k == 0 })
        defer { relay.close() }
        let start = MonotonicClock.now()
        let m = try await plugin.runClient(cell, server: relay.address)
        let took = Double(MonotonicClock.elapsed(since: start)) / 1e9
        try await server.finish()
        #expect(try #require(m.delivery).receivedMessages == 100)
        #expect(m.extra["udp"]?["end_attempts"] == 10)
        #expect(relay.droppedReplyCount(type: 0x12) == 1)
        #expect(took > 2.5, "the ENDs really were lost for longer than the old 2 s linger (took \(took) s)")
    }

    @Test("lost BYEs are repeated: the server ends at the first that arrives, not its 10 s linger")
    func byeLostSeveralTimes() async throws {
        let cell = makeCell(payload: Payload(count: 10, size: 100), probes: 1, seconds: 30)
        let plugin = UDPPlugin()
        let server = try await plugin.startServer(cell)
        let relay = try LossyRelay(server: server.address, drop: { type, _, k in type == 0x13 && k < 6 })
        defer { relay.close() }
        _ = try await plugin.runClient(cell, server: relay.address)
        let start = MonotonicClock.now()
        try await server.finish()
        #expect(relay.droppedCount(type: 0x13) == 6)
        #expect(MonotonicClock.elapsed(since: start) < 5_000_000_000, "the seventh BYE ended the session")
    }

    @Test(
        "a bad option names its JSON path",
        arguments: [
            (["rateMbps": "fast"] as JSONValue, "$.transports[2].options.rateMbps"),
            (["rateMbps": 0] as JSONValue, "$.transports[2].options.rateMbps"),
            (["probeTimeoutMs": 0] as JSONValue, "$.transports[2].options.probeTimeoutMs"),
            (["loadedRttProbes": ["flow": "sideways"]] as JSONValue, "$.transports[2].options.loadedRttProbes.flow"),
        ])
    func badOption(options: JSONValue, path: String) throws {
        let reader = try PluginOptions(options, path: JSONPath.root.key("transports").index(2).key("options"))
        let error = #expect(throws: InputError.self) { _ = try UDPPlugin(options: reader) }
        #expect(error?.problems.first?.path == path)
    }

    @Test("options default to unpaced and are recorded")
    func defaults() throws {
        let reader = try PluginOptions(nil, path: JSONPath.root.key("transports").index(2).key("options"))
        let plugin = try UDPPlugin(options: reader)
        try reader.finish()
        #expect(plugin.options == UDPOptions())
        #expect(reader.effectiveJSON["rateMbps"] == JSONValue.null)
        #expect(reader.effectiveJSON["probeTimeoutMs"] == 1_000)
    }
}
