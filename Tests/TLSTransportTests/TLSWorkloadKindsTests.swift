import PeerBenchPlugin
import Testing
import TransportTestSupport

@testable import TLSTransport

/// The workload kinds inside TLS 1.3 (docs/WORKLOADS.md): the same frames as tcp, but a
/// GnuTLS session read by one thread while another writes (bidir) and records cut at
/// 16 KiB, so the exact counts are worth checking again here.
@Suite("Stream workloads on loopback (tls)", .timeLimit(.minutes(3)))
struct TLSWorkloadKindsTests {
    @Test("bidir: 300 x 16 KiB each way through one TLS session, exactly")
    func bidir() async throws {
        let m = try await WorkloadCells.run(TLSPlugin(), try WorkloadCells.spec(#""bidir""#), payload: Payload(count: 300, size: 16_384))
        #expect(m.status == .ok, "\(m.error ?? "")")
        let exact = Delivery(sentMessages: 300, receivedMessages: 300, sentBytes: 4_915_200, receivedBytes: 4_915_200)
        #expect(m.byDirection?.up?.delivery == exact)
        #expect(m.byDirection?.down?.delivery == exact)
        #expect(m.congestionControl != nil)
    }

    @Test("request-response with 4 outstanding, and isochronous both ways, complete")
    func transactionsAndFrames() async throws {
        let rpc = try WorkloadCells.spec(
            #"{"name": "rpc", "kind": "request-response", "requests": 40, "requestBytes": 300, "responseBytes": 20000, "concurrency": 4}"#)
        let m = try await WorkloadCells.run(TLSPlugin(), rpc, payload: nil)
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.transactionNanos?.count == 40)
        #expect(m.delivery?.receivedBytes == 800_000)

        let video = try WorkloadCells.spec(
            #"{"name": "video", "kind": "isochronous", "frameBytes": 40000, "periodMs": 10, "durationSeconds": 0.3, "direction": "bidir"}"#)
        let f = try await WorkloadCells.run(TLSPlugin(), video, payload: nil)
        #expect(f.status == .ok, "\(f.error ?? "")")
        #expect(f.frames?.sent == 60 && f.frames?.received == 60 && f.frames?.late == 0)
    }
}

@Suite("Stream workloads: parallel flows (tls)", .timeLimit(.minutes(3)))
struct TLSParallelFlowsTests {
    @Test("bidir over 2 TLS connections at once: 200 x 16 KiB each way, exactly")
    func bidirOverTwoFlows() async throws {
        let w = try WorkloadCells.spec(#"{"name": "p", "kind": "bulk", "direction": "bidir", "streams": 2}"#)
        let m = try await WorkloadCells.run(TLSPlugin(), w, payload: Payload(count: 200, size: 16_384))
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.byDirection?.up?.delivery.receivedBytes == 3_276_800)
        #expect(m.byDirection?.down?.delivery.receivedBytes == 3_276_800)
        #expect(m.extra["streams"]?.arrayValue?.count == 2)
    }
}
