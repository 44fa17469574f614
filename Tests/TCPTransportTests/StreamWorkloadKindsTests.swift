import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import TCPTransport

/// Every workload kind and direction over the tcp plugin's real client and server on
/// loopback (docs/WORKLOADS.md): the bytes move the way the workload says, exactly.
@Suite("Stream workloads on loopback (tcp)", .timeLimit(.minutes(3)))
struct StreamWorkloadKindsTests {
    static let payload = Payload(count: 400, size: 4_096)

    @Test("download: the server's 400 x 4 KiB reach the client exactly; nothing is counted up")
    func download() async throws {
        let m = try await WorkloadCells.run(TCPPlugin(), try WorkloadCells.spec(#""download""#), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let flows = try #require(m.byDirection)
        #expect(flows.up == nil)
        let down = try #require(flows.down)
        #expect(down.delivery == Delivery(sentMessages: 400, receivedMessages: 400, sentBytes: 1_638_400, receivedBytes: 1_638_400))
        #expect(down.nanos > 0 && m.bulkNanos == down.nanos)
        #expect(m.delivery == down.delivery)
        #expect(m.rttNanos.count == 3, "the probes still run first")
    }

    @Test("bidir: both directions carry the payload at once; the total is their sum")
    func bidir() async throws {
        let m = try await WorkloadCells.run(TCPPlugin(), try WorkloadCells.spec(#""bidir""#), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let flows = try #require(m.byDirection)
        let exact = Delivery(sentMessages: 400, receivedMessages: 400, sentBytes: 1_638_400, receivedBytes: 1_638_400)
        #expect(flows.up?.delivery == exact)
        #expect(flows.down?.delivery == exact)
        #expect(m.delivery == Delivery(sentMessages: 800, receivedMessages: 800, sentBytes: 3_276_800, receivedBytes: 3_276_800))
        #expect(m.bulkNanos == max(flows.up?.nanos ?? 0, flows.down?.nanos ?? 0))
        #expect(m.receiverSpanNanos == nil, "two receivers: no single span")
    }

    @Test("request-response: every transaction is timed and answered with its bytes", arguments: [1, 4])
    func requestResponse(concurrency: Int) async throws {
        let w = try WorkloadCells.spec(
            #"{"name": "rpc", "kind": "request-response", "requests": 60, "requestBytes": 100, "responseBytes": 2000, "concurrency": \#(concurrency)}"#
        )
        let m = try await WorkloadCells.run(TCPPlugin(), w, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let times = try #require(m.transactionNanos)
        #expect(times.count == 60)
        #expect(times.allSatisfy { $0 > 0 && $0 < 1_000_000_000 })
        #expect(m.delivery == Delivery(sentMessages: 60, receivedMessages: 60, sentBytes: 6_000, receivedBytes: 120_000))
    }

    @Test("isochronous: 40 frames every 5 ms arrive on schedule, none late, in each direction", arguments: ["up", "down", "bidir"])
    func isochronous(direction: String) async throws {
        let w = try WorkloadCells.spec(
            #"{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 5, "durationSeconds": 0.2, "direction": "\#(direction)"}"#)
        let start = MonotonicClock.now()
        let m = try await WorkloadCells.run(TCPPlugin(), w, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let frames = try #require(m.frames)
        let expected = direction == "bidir" ? 80 : 40
        #expect(frames.sent == expected && frames.received == expected && frames.lost == 0)
        #expect(frames.late == 0)
        #expect(frames.delayNanos.count == expected)
        #expect(frames.delayNanos.contains(0), "delays are measured from the least-delayed frame")
        #expect(frames.deadlineNanos == 100_000_000, "default: three periods, at least 100 ms")
        // The sender kept the schedule: 40 frames 5 ms apart take at least 195 ms.
        #expect(MonotonicClock.elapsed(since: start) >= 195_000_000)
    }
}

/// Parallel streams (iperf3's `-P`): one connection per flow, the payload's messages
/// dealt among them, all at once.
@Suite("Stream workloads: parallel flows (tcp)", .timeLimit(.minutes(3)))
struct StreamParallelFlowsTests {
    @Test(
        "upload over 4 flows and download over 3: the payload's 1 001 messages exactly, dealt among the flows", arguments: [("up", 4), ("down", 3)])
    func flows(direction: String, streams: Int) async throws {
        let w = try WorkloadCells.spec(#"{"name": "p", "kind": "bulk", "direction": "\#(direction)", "streams": \#(streams)}"#)
        let m = try await WorkloadCells.run(TCPPlugin(), w, payload: Payload(count: 1_001, size: 4_096))
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery == Delivery(sentMessages: 1_001, receivedMessages: 1_001, sentBytes: 4_100_096, receivedBytes: 4_100_096))
        let each = try #require(m.extra["streams"]?.arrayValue)
        #expect(each.count == streams)
        #expect(each.allSatisfy { ($0["throughput_mbps"]?.doubleValue ?? 0) > 0 }, "every flow moved data")
        if direction == "down" {
            #expect(m.byDirection?.down?.delivery.receivedMessages == 1_001 && m.byDirection?.up == nil)
        }
    }
}
