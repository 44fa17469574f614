import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import QUICTransport

/// Every workload kind and direction over the quic plugin's real client and server on
/// loopback (docs/WORKLOADS.md, docs/protocol/quic.md section 4c): the bytes move the
/// way the workload says, exactly, on the streams the protocol gives them.
@Suite("QUIC workloads on loopback", .timeLimit(.minutes(3)))
struct QUICWorkloadKindsTests {
    static let payload = Payload(count: 400, size: 4_096)

    @Test("download: the server's 400 x 4 KiB reach the client exactly; nothing is counted up")
    func download() async throws {
        let m = try await WorkloadCells.run(try makePlugin(), try WorkloadCells.spec(#""download""#), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let flows = try #require(m.byDirection)
        #expect(flows.up == nil)
        let down = try #require(flows.down)
        #expect(down.delivery == Delivery(sentMessages: 400, receivedMessages: 400, sentBytes: 1_638_400, receivedBytes: 1_638_400))
        #expect(down.nanos > 0 && m.bulkNanos == down.nanos)
        #expect(m.delivery == down.delivery)
        #expect((m.receiverSpanNanos ?? 0) > 0, "the client received: its own span")
        #expect(m.rttNanos.count == 3, "the probes still run first")
        #expect(m.extra["quic"]?["server_bulk_streams"]?.intValue == 0, "nothing went up")
    }

    @Test("bidir: both directions carry the payload at once; the total is their sum", arguments: [StreamMode.single, .perMessage])
    func bidir(mode: StreamMode) async throws {
        let plugin = try makePlugin(["streams": .string(mode.rawValue)])
        let m = try await WorkloadCells.run(plugin, try WorkloadCells.spec(#""bidir""#), payload: Self.payload)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let flows = try #require(m.byDirection)
        let exact = Delivery(sentMessages: 400, receivedMessages: 400, sentBytes: 1_638_400, receivedBytes: 1_638_400)
        #expect(flows.up?.delivery == exact)
        #expect(flows.down?.delivery == exact)
        #expect(m.delivery == Delivery(sentMessages: 800, receivedMessages: 800, sentBytes: 3_276_800, receivedBytes: 3_276_800))
        #expect(m.bulkNanos == max(flows.up?.nanos ?? 0, flows.down?.nanos ?? 0))
        #expect((flows.up?.nanos ?? 0) > 0 && (flows.down?.nanos ?? 0) > 0)
        #expect(m.receiverSpanNanos == nil, "two receivers: no single span")
        #expect(m.extra["quic"]?["server_bulk_streams"]?.intValue == (mode == .single ? 1 : 400), "the pull stream is not a bulk stream")
    }

    @Test("request-response: every transaction is timed and answered with its bytes, on concurrency streams at once", arguments: [1, 4])
    func requestResponse(concurrency: Int) async throws {
        let w = try WorkloadCells.spec(
            #"{"name": "rpc", "kind": "request-response", "requests": 60, "requestBytes": 100, "responseBytes": 2000, "concurrency": \#(concurrency)}"#
        )
        let m = try await WorkloadCells.run(try makePlugin(), w, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let times = try #require(m.transactionNanos)
        #expect(times.count == 60)
        #expect(times.allSatisfy { $0 > 0 && $0 < 1_000_000_000 })
        #expect(m.delivery == Delivery(sentMessages: 60, receivedMessages: 60, sentBytes: 6_000, receivedBytes: 120_000))
        #expect((m.bulkNanos ?? 0) > 0)
        let quic = try #require(m.extra["quic"]?.objectValue)
        #expect(quic["request_streams"]?.intValue == 60, "one stream per request")
        // With 4 allowed, 4 request streams are open at once (all are opened before the
        // first answer can come back); with 1, never more than 1.
        #expect(quic["request_streams_peak"]?.intValue == concurrency)
        let sorted = times.sorted()
        print(
            "quic rpc concurrency \(concurrency): median \(Double(sorted[30]) / 1e6) ms, max \(Double(sorted[59]) / 1e6) ms, all \(Double(m.bulkNanos ?? 0) / 1e6) ms"
        )
    }

    @Test("request-response: 1 MiB responses to 1-byte requests cross intact")
    func largeResponse() async throws {
        let w = try WorkloadCells.spec(#"{"name": "fetch", "kind": "request-response", "requests": 3, "requestBytes": 1, "responseBytes": 1048576}"#)
        let m = try await WorkloadCells.run(try makePlugin(), w, payload: nil, probes: 0)
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery == Delivery(sentMessages: 3, receivedMessages: 3, sentBytes: 3, receivedBytes: 3 << 20))
        #expect(m.transactionNanos?.count == 3)
    }

    @Test("isochronous: 40 frames every 5 ms arrive on schedule, none late, in each direction", arguments: ["up", "down", "bidir"])
    func isochronous(direction: String) async throws {
        let w = try WorkloadCells.spec(
            #"{"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 5, "durationSeconds": 0.2, "direction": "\#(direction)"}"#)
        let start = MonotonicClock.now()
        let m = try await WorkloadCells.run(try makePlugin(), w, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        let frames = try #require(m.frames)
        let expected = direction == "bidir" ? 80 : 40
        #expect(frames.sent == expected && frames.received == expected && frames.lost == 0)
        #expect(frames.late == 0)
        #expect(frames.delayNanos.count == expected)
        #expect(frames.delayNanos.contains(0), "delays are measured from the least-delayed frame")
        #expect(frames.delayNanos.allSatisfy { $0 < 50_000_000 }, "loopback: \(frames.delayNanos.max() ?? 0) ns")
        #expect(frames.deadlineNanos == 100_000_000, "default: three periods, at least 100 ms")
        #expect(m.delivery == nil && m.bulkNanos == nil, "as tcp's: the frames are the measurement")
        let d = frames.delayNanos.sorted()
        print("quic voice \(direction): delay median \(Double(d[d.count / 2]) / 1e6) ms, max \(Double(d.last ?? 0) / 1e6) ms")
        // The senders kept the schedule: 40 frames 5 ms apart take at least 195 ms.
        #expect(MonotonicClock.elapsed(since: start) >= 195_000_000)
    }

    /// Through a relay that drops 5 % of the datagrams each way: QUIC retransmits on
    /// every stream, so every request is answered and every frame arrives, exactly.
    @Test("through 5 % loss each way every request is answered and every frame arrives", arguments: ["rpc", "voice"])
    func lossyPath(kind: String) async throws {
        let w =
            kind == "rpc"
            ? try WorkloadCells.spec(
                #"{"name": "rpc", "kind": "request-response", "requests": 200, "requestBytes": 100, "responseBytes": 3000, "concurrency": 4}"#)
            : try WorkloadCells.spec(
                #"{"name": "voice", "kind": "isochronous", "frameBytes": 1200, "periodMs": 2, "durationSeconds": 0.5, "direction": "bidir"}"#)
        let plugin = try makePlugin()
        var cell = CellContext.loopback(payload: nil, rttProbes: 3, timeoutSeconds: 40)
        cell.workload = w
        let (m, dropped) = try await runThroughLossyRelay(plugin, cell, seed: 7)
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(dropped > 0, "the relay dropped nothing")
        if kind == "rpc" {
            #expect(m.delivery == Delivery(sentMessages: 200, receivedMessages: 200, sentBytes: 20_000, receivedBytes: 600_000))
            #expect(m.transactionNanos?.count == 200)
            let t = (m.transactionNanos ?? []).sorted()
            print(
                "quic rpc through 5 % loss: \(dropped) datagrams dropped, median \(Double(t[t.count / 2]) / 1e6) ms, max \(Double(t.last ?? 0) / 1e6) ms"
            )
        } else {
            let frames = try #require(m.frames)
            #expect(frames.sent == 500 && frames.received == 500 && frames.lost == 0)
            let d = frames.delayNanos.sorted()
            print(
                "quic voice through 5 % loss: \(dropped) datagrams dropped, \(frames.late) late, delay median \(Double(d[d.count / 2]) / 1e6) ms, max \(Double(d.last ?? 0) / 1e6) ms"
            )
        }
    }

    /// `resumption` and `zeroRTT` change only the handshake: the workload streams run
    /// on the resumed connection (after 0-RTT HELLO and the early probe) as on any other.
    @Test("request-response on a 0-RTT resumed connection")
    func resumedConnection() async throws {
        let plugin = try makePlugin(["resumption": .bool(true), "zeroRTT": .bool(true)])
        let w = try WorkloadCells.spec(
            #"{"name": "rpc", "kind": "request-response", "requests": 20, "requestBytes": 64, "responseBytes": 512, "concurrency": 4}"#)
        #expect(plugin.check(workload: w, path: JSONPath.root).isEmpty)
        let m = try await WorkloadCells.run(plugin, w, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery == Delivery(sentMessages: 20, receivedMessages: 20, sentBytes: 1_280, receivedBytes: 10_240))
        #expect(m.extra["quic"]?["resumed"] == .bool(true))
        #expect(m.extra["quic"]?["early_data_accepted"] == .bool(true))
    }

    @Test("check(workload:): every kind runs; reconnect and loaded probes are refused with anything but the upload, naming the option")
    func checkRefusesUploadOnlyOptions() throws {
        let plain = try makePlugin()
        for json in [
            #""download""#, #""bidir""#, #"{"name": "rpc", "kind": "request-response", "requests": 5, "requestBytes": 1, "responseBytes": 1}"#,
            #"{"name": "v", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 1, "direction": "bidir"}"#,
        ] {
            #expect(plain.check(workload: try WorkloadCells.spec(json), path: JSONPath.root).isEmpty, "\(json)")
        }
        let rpc = try WorkloadCells.spec(#"{"name": "rpc", "kind": "request-response", "requests": 5, "requestBytes": 1, "responseBytes": 1}"#)
        let loaded = try makePlugin(["loadedRttProbes": .object(JSONObject(["intervalMs": JSONValue(50)]))])
        let problems = loaded.check(workload: rpc, path: JSONPath.root.key("workloads").index(0))
        #expect(problems.count == 1)
        #expect(
            problems.first?.message.contains("loadedRttProbes") == true && problems.first?.message.contains("unsupported") == true,
            "\(problems)")
        let reconnect = try makePlugin(["reconnect": .bool(true), "idleTimeoutSeconds": JSONValue(2)])
        #expect(reconnect.check(workload: rpc, path: JSONPath.root).first?.message.contains("reconnect") == true)
        #expect(reconnect.check(workload: .upload, path: JSONPath.root).isEmpty)
    }
}
