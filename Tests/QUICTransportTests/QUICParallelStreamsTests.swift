import PeerBenchJSON
import PeerBenchPlugin
import Testing
import TransportTestSupport

@testable import QUICTransport

/// A bulk workload over 4 parallel streams of one quic connection, real client and
/// server on loopback (docs/protocol/quic.md section 4c, "Parallel streams"): every
/// byte arrives, each stream's throughput is in `extra.streams`, and the streams run
/// at once (each one's first byte before any one's last).
@Suite("QUIC parallel streams on loopback", .serialized, .timeLimit(.minutes(3)))
struct QUICParallelStreamsTests {
    /// 402 messages: 4 streams carry 101, 101, 100, 100 (the first count % 4 one more).
    static let payload = Payload(count: 402, size: 16_384)
    static let bytes = 402 * 16_384

    static func workload(_ direction: String, streams: Int = 4) throws -> WorkloadSpec {
        try WorkloadCells.spec(#"{"name": "p", "kind": "bulk", "direction": "\#(direction)", "streams": \#(streams)}"#)
    }

    @Test("4 streams move exactly count x size, each with its throughput, all at once", arguments: ["up", "down", "bidir"])
    func fourStreams(direction: String) async throws {
        let m = try await WorkloadCells.run(try makePlugin(), try Self.workload(direction), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let ways = direction == "bidir" ? 2 : 1
        #expect(
            m.delivery
                == Delivery(sentMessages: 402 * ways, receivedMessages: 402 * ways, sentBytes: Self.bytes * ways, receivedBytes: Self.bytes * ways))
        let exact = Delivery(sentMessages: 402, receivedMessages: 402, sentBytes: Self.bytes, receivedBytes: Self.bytes)
        if direction == "up" {
            #expect(m.byDirection == nil, "an upload has no directions, as tcp's")
        } else {
            #expect(m.byDirection?.down?.delivery == exact)
            #expect(m.byDirection?.up?.delivery == (direction == "bidir" ? exact : nil))
        }
        #expect(m.rttNanos.count == 3, "the probes still run first")
        let streams = try #require(m.extra["streams"]?.arrayValue)
        #expect(streams.count == 4)
        let mbps = streams.compactMap { $0["throughput_mbps"]?.doubleValue }
        #expect(mbps.count == 4 && mbps.allSatisfy { $0 > 0 }, "\(streams)")
        // Concurrency: every stream's first byte arrived before any stream's last.
        for way in direction == "bidir" ? ["up", "down"] : [direction] {
            let firsts = streams.compactMap { $0["\(way)_first_ms"]?.doubleValue }
            let lasts = streams.compactMap { $0["\(way)_last_ms"]?.doubleValue }
            #expect(firsts.count == 4 && lasts.count == 4, "\(streams)")
            #expect((firsts.max() ?? .infinity) < (lasts.min() ?? 0), "\(way): streams ran one after the other: first \(firsts), last \(lasts)")
            print(
                "quic 4 streams \(direction) \(way): first bytes at \(firsts) ms, last at \(lasts) ms, \(mbps) Mbit/s, total \(Double(m.delivery?.receivedBytes ?? 0) * 8 / Double(m.bulkNanos ?? 1) * 1e3) Mbit/s"
            )
        }
        #expect(m.extra["quic"]?["server_bulk_streams"]?.intValue == 0, "flow streams are not the upload's bulk streams")
    }

    /// QUIC retransmits each stream's lost data from the borrowed message block while
    /// the streams keep taking turns: every byte of every stream arrives, both ways.
    @Test("through 5 % loss each way the 4 streams of a bidir still deliver every byte")
    func lossyPath() async throws {
        let plugin = try makePlugin()
        var cell = CellContext.loopback(payload: Payload(count: 202, size: 16_384), rttProbes: 3, timeoutSeconds: 40)
        cell.workload = try Self.workload("bidir")
        let (m, dropped) = try await runThroughLossyRelay(plugin, cell, seed: 11)
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(dropped > 0, "the relay dropped nothing")
        let exact = Delivery(sentMessages: 202, receivedMessages: 202, sentBytes: 202 * 16_384, receivedBytes: 202 * 16_384)
        #expect(m.byDirection?.up?.delivery == exact && m.byDirection?.down?.delivery == exact)
        let streams = try #require(m.extra["streams"]?.arrayValue)
        #expect(streams.count == 4 && streams.allSatisfy { ($0["throughput_mbps"]?.doubleValue ?? 0) > 0 }, "\(streams)")
        print(
            "quic 4 streams bidir through 5 % loss: \(dropped) datagrams dropped, \(streams.map { $0["throughput_mbps"]?.doubleValue ?? 0 }) Mbit/s")
    }

    @Test("fewer messages than streams: the empty flows open no stream and report no throughput")
    func fewerMessagesThanStreams() async throws {
        let m = try await WorkloadCells.run(try makePlugin(), try Self.workload("up"), payload: Payload(count: 3, size: 1_000))
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery == Delivery(sentMessages: 3, receivedMessages: 3, sentBytes: 3_000, receivedBytes: 3_000))
        let streams = try #require(m.extra["streams"]?.arrayValue)
        #expect(streams.map { $0["throughput_mbps"]?.doubleValue != nil } == [true, true, true, false])
    }

    @Test("validate: parallel streams run; with the perMessage stream mode they are refused naming the workload's streams key")
    func validation() throws {
        let w = try Self.workload("bidir")
        #expect(try makePlugin().check(workload: w, path: JSONPath.root.key("workloads").index(0)).isEmpty)
        let problems = try makePlugin(["streams": .string("perMessage")]).check(workload: w, path: JSONPath.root.key("workloads").index(0))
        #expect(problems.count == 1)
        #expect(problems.first?.path == "$.workloads[0].streams", "\(problems)")
        #expect(problems.first?.message.contains("perMessage") == true, "\(problems)")
    }
}
