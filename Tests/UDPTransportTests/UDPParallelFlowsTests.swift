import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import UDPTransport

/// A bulk workload over 4 parallel udp flows, real client and server on loopback
/// (docs/protocol/udp.md, "Parallel flows"): each flow its own socket pair (4 source
/// ports, 4 server ports), all at once, the rate shared, every datagram counted.
@Suite("UDP parallel flows on loopback", .serialized, .timeLimit(.minutes(3)))
struct UDPParallelFlowsTests {
    /// 402 datagrams: flows of 101, 101, 100, 100.
    static let payload = Payload(count: 402, size: 4_096)
    static let bytes = 402 * 4_096

    static func workload(_ direction: String, streams: Int = 4) throws -> WorkloadSpec {
        try WorkloadCells.spec(#"{"name": "p", "kind": "bulk", "direction": "\#(direction)", "streams": \#(streams)}"#)
    }

    /// One cell as the runner runs it: the server's hello reaches the client.
    static func run(_ plugin: UDPPlugin, _ workload: WorkloadSpec, payload: Payload) async throws -> TransportMeasurement {
        var cell = makeCell(payload: payload, probes: 3)
        cell.workload = workload
        let server = try await plugin.startServer(cell)
        cell.serverHello = server.hello
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }

    @Test("4 flows move exactly count x size over 4 socket pairs, each with its throughput", arguments: ["up", "down", "bidir"])
    func fourFlows(direction: String) async throws {
        // Paced at 400 Mbit/s in all (100 each), so loopback's buffers lose nothing: the
        // counts are exact, and the 4 flows' sending overlaps for ~8 ms each.
        let start = MonotonicClock.now()
        let m = try await Self.run(UDPPlugin(UDPOptions(rateMbps: 400)), try Self.workload(direction), payload: Self.payload)
        let took = MonotonicClock.elapsed(since: start)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let ways = direction == "bidir" ? 2 : 1
        #expect(
            m.delivery
                == Delivery(sentMessages: 402 * ways, receivedMessages: 402 * ways, sentBytes: Self.bytes * ways, receivedBytes: Self.bytes * ways))
        let exact = Delivery(sentMessages: 402, receivedMessages: 402, sentBytes: Self.bytes, receivedBytes: Self.bytes)
        if direction == "up" {
            #expect(m.byDirection == nil)
        } else {
            #expect(m.byDirection?.down?.delivery == exact)
            #expect(m.byDirection?.up?.delivery == (direction == "bidir" ? exact : nil))
        }
        #expect(m.rttNanos.count == 3, "the first flow's probes")
        let streams = try #require(m.extra["streams"]?.arrayValue)
        #expect(streams.count == 4)
        let mbps = streams.compactMap { $0["throughput_mbps"]?.doubleValue }
        #expect(mbps.count == 4 && mbps.allSatisfy { $0 > 0 }, "\(streams)")
        let sources = Set(streams.compactMap { $0["source_port"]?.intValue })
        let servers = Set(streams.compactMap { $0["server_port"]?.intValue })
        #expect(sources.count == 4 && servers.count == 4, "4 socket pairs: \(streams)")
        #expect(m.extra["udp"]?["flow_rate_mbps"]?.doubleValue == 100, "the rate is shared")
        // At 100 Mbit/s a flow's 101 x 4 KiB take 33 ms: every flow began before any ended.
        let bulk = Double(m.bulkNanos ?? 0) / 1e6
        #expect(bulk >= 30, "\(bulk) ms: paced at the shared rate")
        let began = streams.compactMap { $0["started_ms"]?.doubleValue }, ended = streams.compactMap { $0["ended_ms"]?.doubleValue }
        #expect(began.count == 4 && ended.count == 4 && (began.max() ?? .infinity) < (ended.min() ?? 0), "began \(began), ended \(ended)")
        print(
            "udp 4 flows \(direction): \(mbps) Mbit/s, began \(began) ended \(ended) ms, bulk \(bulk) ms, cell \(Double(took) / 1e6) ms, ports \(sources.sorted()) -> \(servers.sorted())"
        )
    }

    @Test("fewer datagrams than flows: every flow says HELLO and BYE, the empty ones report no throughput")
    func fewerMessagesThanFlows() async throws {
        let m = try await Self.run(UDPPlugin(), try Self.workload("up"), payload: Payload(count: 2, size: 100))
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery == Delivery(sentMessages: 2, receivedMessages: 2, sentBytes: 200, receivedBytes: 200))
        let streams = try #require(m.extra["streams"]?.arrayValue)
        #expect(streams.map { $0["throughput_mbps"]?.doubleValue != nil } == [true, true, false, false])
    }

    @Test("validate: udp takes parallel flows")
    func validation() throws {
        let w = try Self.workload("up")
        #expect(UDPPlugin().check(workload: w, path: JSONPath.root.key("matrix").key("workloads").index(1)).isEmpty)
    }
}
