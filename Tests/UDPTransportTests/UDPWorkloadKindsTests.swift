import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing
import TransportTestSupport

@testable import UDPTransport

/// The workload kinds beyond the upload over the udp plugin's real client and server on
/// loopback (docs/WORKLOADS.md, docs/protocol/udp.md "Workloads"), and, through
/// `LossyRelay`, what a lost request, response, frame or control datagram does.
@Suite("UDP workloads on loopback", .serialized, .timeLimit(.minutes(3)))
struct UDPWorkloadKindsTests {
    static func rpc(_ requests: Int, concurrency: Int, response: Int = 2_000) throws -> WorkloadSpec {
        try WorkloadCells.spec(
            #"{"name": "rpc", "kind": "request-response", "requests": \#(requests), "requestBytes": 100, "responseBytes": \#(response), "concurrency": \#(concurrency)}"#
        )
    }

    static func voice(_ direction: String) throws -> WorkloadSpec {
        try WorkloadCells.spec(
            #"{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 5, "durationSeconds": 0.2, "direction": "\#(direction)"}"#)
    }

    static let payload = Payload(count: 400, size: 4_096)

    @Test("download: the server's 400 x 4 KiB reach the client exactly; nothing is counted up")
    func download() async throws {
        let m = try await WorkloadCells.run(UDPPlugin(), try WorkloadCells.spec(#""download""#), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let flows = try #require(m.byDirection)
        #expect(flows.up == nil)
        let down = try #require(flows.down)
        #expect(down.delivery == Delivery(sentMessages: 400, receivedMessages: 400, sentBytes: 1_638_400, receivedBytes: 1_638_400))
        #expect(down.nanos > 0 && m.bulkNanos == down.nanos)
        #expect(m.delivery == down.delivery)
        #expect(m.rttNanos.count == 3, "the probes still run first")
        #expect((m.receiverSpanNanos ?? 0) > 0 && (m.receiverSpanNanos ?? 0) <= down.nanos)
        #expect(m.rfc3550JitterMs != nil, "the client computes the down flow's jitter")
        #expect(m.extra["udp"]?["pull_attempts"] == JSONValue(1))
    }

    @Test("bidir: both directions carry the payload at once; the total is their sum")
    func bidir() async throws {
        let m = try await WorkloadCells.run(UDPPlugin(), try WorkloadCells.spec(#""bidir""#), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let flows = try #require(m.byDirection)
        let exact = Delivery(sentMessages: 400, receivedMessages: 400, sentBytes: 1_638_400, receivedBytes: 1_638_400)
        #expect(flows.up?.delivery == exact)
        #expect(flows.down?.delivery == exact)
        #expect(m.delivery == Delivery(sentMessages: 800, receivedMessages: 800, sentBytes: 3_276_800, receivedBytes: 3_276_800))
        #expect(m.bulkNanos == max(flows.up?.nanos ?? 0, flows.down?.nanos ?? 0))
        #expect(m.receiverSpanNanos == nil, "two receivers: no single span")
        #expect(m.extra["udp"]?["end_attempts"] != nil, "the upload's END/REPORT ran beside the download")
    }

    @Test("download paced by rateMbps: the server sends at the plugin's rate")
    func pacedDownload() async throws {
        let rate = 20.0
        // 400 x 1 250 B = 4 Mbit: 200 ms at 20 Mbit/s.
        let m = try await WorkloadCells.run(
            UDPPlugin(UDPOptions(rateMbps: rate)), try WorkloadCells.spec(#""download""#),
            payload: Payload(count: 400, size: 1_250))
        let down = try #require(m.byDirection?.down)
        #expect(down.delivery.receivedMessages == 400)
        let mbps = try #require(down.throughputMbps)
        #expect(abs(mbps - rate) / rate < 0.2, "delivered at \(mbps) Mbit/s, asked for \(rate)")
    }

    @Test("download with lost DATA, a lost PULL and a lost PUSHED: loss counted, PULL repeated, PUSHED repeated")
    func downloadLoss() async throws {
        var cell = makeCell(payload: Self.payload, probes: 3)
        cell.workload = try WorkloadCells.spec(#""download""#)
        // Paced, so no socket on the way (the relay's hold 8 MiB, the client's the
        // plugin's default) overflows with an unpaced 1.6 MB burst: loss the test did
        // not choose.
        let plugin = UDPPlugin(UDPOptions(rateMbps: 100))
        let server = try await plugin.startServer(cell)
        let relay = try LossyRelay(
            server: server.address, drop: { type, _, k in type == 0x27 && k == 0 },
            dropReply: { type, seq, k in (type == 0x10 && seq % 10 == 0) || (type == 0x28 && k == 0) })
        defer { relay.close() }
        let m = try await plugin.runClient(cell, server: relay.address)
        try await server.finish()
        #expect(m.status == .ok, "UDP loss is what is measured, as in the upload")
        let down = try #require(m.byDirection?.down)
        #expect(down.delivery == Delivery(sentMessages: 400, receivedMessages: 360, sentBytes: 1_638_400, receivedBytes: 360 * 4_096))
        #expect(abs(down.delivery.lossRatio - 0.1) < 1e-9)
        #expect(m.extra["udp"]?["pull_attempts"] == JSONValue(3))
        #expect(relay.droppedReplyCount(type: 0x28) == 1 && relay.droppedCount(type: 0x27) == 1)
    }

    @Test("request-response: every transaction is timed and answered with its bytes", arguments: [1, 4])
    func requestResponse(concurrency: Int) async throws {
        let m = try await WorkloadCells.run(UDPPlugin(), try Self.rpc(60, concurrency: concurrency), payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let times = try #require(m.transactionNanos)
        #expect(times.count == 60)
        #expect(times.allSatisfy { $0 > 0 && $0 < 1_000_000_000 })
        #expect(m.delivery == Delivery(sentMessages: 60, receivedMessages: 60, sentBytes: 6_000, receivedBytes: 120_000))
        #expect(m.rttNanos.count == 3, "the probes still run first")
        #expect(m.extra["udp"]?["transactions_lost"] == JSONValue(0))
        #expect(m.extra["udp"]?["response_datagram_bytes"] == JSONValue(24 + 2_000))
    }

    @Test("request-response in an authenticated cell: tagged REQUESTs are answered, as many as sent")
    func requestResponseAuthenticated() async throws {
        var cell = makeCell(payload: nil, probes: 2)
        cell.dataKey = try CellDataKey.random()
        cell.workload = try Self.rpc(20, concurrency: 2, response: 60_000)
        let server = try await UDPPlugin().startServer(cell)
        let m = try await UDPPlugin().runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery == Delivery(sentMessages: 20, receivedMessages: 20, sentBytes: 2_000, receivedBytes: 1_200_000))
        #expect(m.extra["udp"]?["request_datagram_bytes"] == JSONValue(24 + 8 + 100 + 8))
    }

    @Test("an authenticated cell: tagged FRAMEs, FRAME_PULL, FRAME_END and PULL are all taken", arguments: ["voice", "download"])
    func authenticatedFlows(kind: String) async throws {
        var cell = makeCell(payload: kind == "download" ? Self.payload : nil, probes: 2)
        cell.dataKey = try CellDataKey.random()
        cell.workload = kind == "download" ? try WorkloadCells.spec(#""bidir""#) : try Self.voice("bidir")
        let server = try await UDPPlugin().startServer(cell)
        let m = try await UDPPlugin().runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok, "\(m.error ?? "")")
        if kind == "download" {
            #expect(m.delivery?.receivedMessages == 800)
            #expect(m.extra["udp"]?["unauthenticated_dropped"] == JSONValue(0))
        } else {
            #expect(m.frames?.received == 80)
        }
    }

    @Test("lost requests and responses: counted as lost transactions after the stated timeout, the rest timed")
    func requestResponseLoss() async throws {
        var cell = makeCell(payload: nil, probes: 3)
        cell.workload = try Self.rpc(60, concurrency: 1)
        let plugin = UDPPlugin(UDPOptions(probeTimeoutMs: 100))
        let server = try await plugin.startServer(cell)
        // REQUESTs 3, 13, ..., 53 (6) never reach the server; the RESPONSE to 7 never comes back.
        let relay = try LossyRelay(
            server: server.address, drop: { type, seq, _ in type == 0x20 && seq % 10 == 3 },
            dropReply: { type, seq, _ in type == 0x21 && seq == 7 })
        defer { relay.close() }
        let start = MonotonicClock.now()
        let m = try await plugin.runClient(cell, server: relay.address)
        let took = MonotonicClock.elapsed(since: start)
        try await server.finish()
        #expect(relay.droppedCount(type: 0x20) == 6)
        #expect(relay.droppedReplyCount(type: 0x21) == 1)
        #expect(m.status == .partial)
        #expect(m.error?.contains("7 of 60 transactions got no response within 100 ms") == true, "\(m.error ?? "")")
        #expect(m.transactionNanos?.count == 53)
        #expect(m.transactionNanos?.allSatisfy { $0 < 100_000_000 } == true)
        let d = try #require(m.delivery)
        #expect(d == Delivery(sentMessages: 60, receivedMessages: 53, sentBytes: 6_000, receivedBytes: 106_000))
        #expect(abs(d.lossRatio - 7.0 / 60) < 1e-9)
        #expect(m.extra["udp"]?["transactions_lost"] == JSONValue(7))
        #expect(m.extra["udp"]?["transaction_timeout_ms"] == JSONValue(100))
        // One at a time, each lost one holds the next up for the timeout, and no longer.
        #expect(took >= 700_000_000 && took < 5_000_000_000, "took \(Double(took) / 1e6) ms")
    }

    @Test("isochronous: 40 frames every 5 ms arrive on schedule, none late, in each direction", arguments: ["up", "down", "bidir"])
    func isochronous(direction: String) async throws {
        let start = MonotonicClock.now()
        let m = try await WorkloadCells.run(UDPPlugin(), try Self.voice(direction), payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let frames = try #require(m.frames)
        let expected = direction == "bidir" ? 80 : 40
        #expect(frames.sent == expected && frames.received == expected && frames.lost == 0)
        #expect(frames.late == 0, "delays: \(frames.delayNanos)")
        #expect(frames.delayNanos.count == expected)
        #expect(frames.delayNanos.contains(0), "delays are measured from the least-delayed frame")
        #expect(frames.delayNanos.allSatisfy { $0 < 50_000_000 })
        #expect(frames.deadlineNanos == 100_000_000, "default: three periods, at least 100 ms")
        // The sender kept the schedule: 40 frames 5 ms apart take at least 195 ms.
        #expect(MonotonicClock.elapsed(since: start) >= 195_000_000)
        #expect(m.extra["udp"]?["frame_datagram_bytes"] == JSONValue(24 + 160))
    }

    @Test("lost frames both ways, a lost FRAME_PULL, FRAME_END and FRAME_REPORT: counted, repaired, reported")
    func isochronousLoss() async throws {
        var cell = makeCell(payload: nil, probes: 3)
        cell.workload = try Self.voice("bidir")
        let plugin = UDPPlugin()
        let server = try await plugin.startServer(cell)
        // Up: frames 0, 8, ..., 32 (5) and the first FRAME_PULL and FRAME_END are lost;
        // down: frames 3 and 4 and the first FRAME_REPORT.
        let relay = try LossyRelay(
            server: server.address,
            drop: { type, seq, k in
                (type == 0x22 && seq % 8 == 0) || (type == 0x25 && k == 0) || (type == 0x23 && k == 0)
            }, dropReply: { type, seq, k in (type == 0x22 && (seq == 3 || seq == 4)) || (type == 0x24 && k == 0) })
        defer { relay.close() }
        let m = try await plugin.runClient(cell, server: relay.address)
        try await server.finish()
        #expect(m.status == .partial)
        #expect(m.error == "udp: 73 of 80 frames arrived")
        let frames = try #require(m.frames)
        #expect(frames.sent == 80 && frames.received == 73 && frames.lost == 7)
        #expect(frames.delayNanos.count == 73)
        let udp = try #require(m.extra["udp"]?.objectValue)
        // The lost FRAME_PULL costs one more; the lost FRAME_END and the lost FRAME_REPORT
        // one each. An answer that was only late (a busy host) is asked for again too,
        // which is the protocol working: at least that many, and a few at most (a fresh
        // clone's run saw 4 FRAME_ENDs once).
        let pulls = try #require(udp["frame_pull_attempts"]?.doubleValue)
        let ends = try #require(udp["frame_end_attempts"]?.doubleValue)
        #expect(pulls >= 2 && pulls <= 5, "\(pulls)")
        #expect(ends >= 3 && ends <= 6, "\(ends)")
        #expect(relay.droppedCount(type: 0x23) == 1 && relay.droppedCount(type: 0x25) == 1 && relay.droppedReplyCount(type: 0x24) == 1)
        #expect(relay.droppedCount(type: 0x22) == 5 && relay.droppedReplyCount(type: 0x22) == 2)
    }

    @Test("a report of more delays than one datagram holds arrives in pieces, each asked for")
    func longReport() async throws {
        // 2 500 frames every 1 ms: three FRAME_REPORTs of at most 1 000 delays.
        let w = try WorkloadCells.spec(
            #"{"name": "video", "kind": "isochronous", "frameBytes": 64, "periodMs": 1, "durationSeconds": 2.5, "direction": "up"}"#)
        let m = try await WorkloadCells.run(UDPPlugin(), w, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let frames = try #require(m.frames)
        #expect(frames.sent == 2_500 && frames.received == 2_500)
        #expect(frames.delayNanos.count == 2_500)
        #expect(frames.delayNanos.contains(0))
        #expect(m.extra["udp"]?["frame_end_attempts"] == JSONValue(3))
    }

    @Test("the server counts a frame's first copy only and reports against the stated schedule")
    func serverDedupesFrames() throws {
        var w = UDPServerWorkloads()
        // Frames 0, 1, 1 (a duplicate), 3 at their slots of a 20 ms period, 2 lost; 99 999 is out of the limit's range.
        for (seq, at) in [(0, 1_000_000_000), (1, 1_020_000_000), (1, 1_021_000_000), (3, 1_065_000_000), (100_000, 1_070_000_000)]
            as [(UInt64, UInt64)]
        {
            w.frame(seq: seq, at: at)
        }
        #expect(w.arrivals.count == 3)
        let end = UDPDatagramHeader(type: .frameEnd, session: 7, sequence: 0, timestamp: 0)
            .datagram([4, 20_000_000, 3_000_000, 0, 0])
        let reply = try #require(end.withUnsafeBytes { w.frameEnd($0, session: 7, now: 5_000_000_000) })
        let fields = reply.withUnsafeBytes { p in (0..<((reply.count - UDPDatagramHeader.size) / 8)).map { p.field($0) } }
        // received 3, late 1 (frame 3: 5 ms after its slot, deadline 3 ms), delays 0, 0, 5 ms.
        #expect(fields == [3, 1, 0, 0, 5_000_000])
        #expect(w.frameReport?.lost == 1)
        // Frozen: a straggler no longer counts; a FRAME_END asking from 2 gets the rest.
        w.frame(seq: 2, at: 1_090_000_000)
        #expect(w.arrivals.count == 3)
        let more = UDPDatagramHeader(type: .frameEnd, session: 7, sequence: 1, timestamp: 0).datagram([4, 20_000_000, 3_000_000, 0, 2])
        let rest = try #require(more.withUnsafeBytes { w.frameEnd($0, session: 7, now: 5_000_000_000) })
        #expect(rest.withUnsafeBytes { p in (0..<3).map { p.field($0) } } == [3, 1, 5_000_000])
        #expect(UDPDatagramHeader(rest.withUnsafeBytes { $0 })?.sequence == 2)
    }

    @Test("a FRAME_PULL or PULL out of bounds starts nothing")
    func serverBoundsPulls() throws {
        var w = UDPServerWorkloads()
        let socket = try Socket(family: 2, type: 2)  // AF_INET, SOCK_DGRAM: never sent on
        defer { socket.close() }
        for fields: [UInt64] in [
            [100_001, 160, 20_000_000], [10, 0, 20_000_000], [10, 65_476, 20_000_000], [10, 160, 999_999], [10, 160, 10_000_000_001],
        ] {
            let d = UDPDatagramHeader(type: .framePull, session: 7, sequence: 0, timestamp: 0).datagram(fields)
            _ = d.withUnsafeBytes { w.framePull($0, socket: socket, session: 7) }
            #expect(w.pulled == nil, "\(fields)")
        }
        let payload = Payload(count: 100, size: 64)
        for fields: [UInt64] in [[101, 64], [0, 64], [100, 65], [100, 0]] {
            let d = UDPDatagramHeader(type: .pull, session: 7, sequence: 0, timestamp: 0).datagram(fields)
            _ = d.withUnsafeBytes { w.pull($0, socket: socket, session: 7, payload: payload, rateMbps: nil) }
            #expect(w.pulledData == nil, "\(fields)")
        }
        let request = UDPDatagramHeader(type: .request, session: 7, sequence: 0, timestamp: 0).datagram([65_484])
        #expect(request.withUnsafeBytes { w.response(to: UDPDatagramHeader($0)!, $0) } == nil)
        let fine = UDPDatagramHeader(type: .request, session: 7, sequence: 0, timestamp: 0).datagram([65_483])
        #expect(fine.withUnsafeBytes { w.response(to: UDPDatagramHeader($0)!, $0) }?.count == 65_507)
    }

    @Test("what udp cannot run is refused at validation, naming the path and the key")
    func refusals() throws {
        let path = JSONPath.root.key("matrix").key("workloads").index(1)
        #expect(UDPPlugin().check(workload: try WorkloadCells.spec(#""download""#), path: path).isEmpty)
        #expect(UDPPlugin().check(workload: try WorkloadCells.spec(#""bidir""#), path: path).isEmpty)
        #expect(UDPPlugin().check(workload: try Self.rpc(10, concurrency: 1), path: path).isEmpty)
        #expect(UDPPlugin().check(workload: try Self.voice("bidir"), path: path).isEmpty)
        #expect(UDPPlugin().check(workload: .upload, path: path).isEmpty)

        let big = try Self.rpc(10, concurrency: 1, response: UDPWorkloadLimits.maxResponseBytes + 1)
        let tooBig = UDPPlugin().check(workload: big, path: path)
        #expect(tooBig.map(\.path) == ["$.matrix.workloads[1].responseBytes"])
        #expect(tooBig.first?.message.contains("65483") == true, "\(tooBig)")
        #expect(UDPPlugin().check(workload: try Self.rpc(10, concurrency: 1, response: UDPWorkloadLimits.maxResponseBytes), path: path).isEmpty)
        let frame = try WorkloadCells.spec(#"{"name": "v", "kind": "isochronous", "frameBytes": 65476, "periodMs": 20, "durationSeconds": 1}"#)
        #expect(UDPPlugin().check(workload: frame, path: path).map(\.path) == ["$.matrix.workloads[1].frameBytes"])

        let withKeepAlive = try UDPPlugin(options: try PluginOptions(["keepAlive": ["missed": 3]], path: .root))
        let refused = withKeepAlive.check(workload: try Self.rpc(10, concurrency: 1), path: path)
        #expect(refused.count == 1 && refused.first?.message.contains("\"keepAlive\"") == true, "\(refused)")
        #expect(withKeepAlive.check(workload: .upload, path: path).isEmpty)
        let withProbes = try UDPPlugin(options: try PluginOptions(["loadedRttProbes": ["intervalMs": 50]], path: .root))
        let refusedDown = withProbes.check(workload: try WorkloadCells.spec(#""download""#), path: path)
        #expect(refusedDown.count == 1 && refusedDown.first?.message.contains("\"loadedRttProbes\"") == true, "\(refusedDown)")
        #expect(refusedDown.first?.message.contains("unsupported") == true)
    }
}
