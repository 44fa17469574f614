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

/// The udp server's datagram handling against what a stranger can send (issue 24,
/// finding 1): a HELLO's count sized the receiver's bitmap unchecked, so one datagram
/// with 2^64-1 killed serve and one with 2^33 reserved 1 GiB.
@Suite("UDP server: numbers from the network are bounded", .serialized, .timeLimit(.minutes(3)))
struct UDPServerFuzzTests {
    /// The datagram: HELLO, session, attempt, timestamp, then `count`.
    static func strangerHello(count: UInt64) -> [UInt8] {
        [0x01, 0x01, 0x00, 0x00] + UInt32(0xBAD).wireBytes + UInt64(0).wireBytes + UInt64(1).wireBytes + count.wireBytes
    }

    @Test(
        "a stranger's HELLO with a huge count neither kills the server nor takes the cell",
        arguments: [UInt64.max, 1 << 33, 1_001])
    func strangerHelloIsIgnored(count: UInt64) async throws {
        let payload = Payload(count: 1_000, size: 256)
        let cell = makeCell(payload: payload, probes: 5)
        let server = try await UDPPlugin().startServer(cell)
        let stranger = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        let hello = Self.strangerHello(count: count)
        for _ in 0..<3 { _ = try hello.withUnsafeBytes { try stranger.send($0, to: server.address) } }
        try await Task.sleep(nanoseconds: 50_000_000)  // the server handles them before the client's HELLO arrives
        let m = try await UDPPlugin().runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        #expect(m.delivery?.receivedMessages == payload.count)
    }

    @Test("counts the receiver cannot account for are refused by the plugin's check, naming the count")
    func checkBoundsTheCount() {
        let path = JSONPath.root.key("matrix").key("payloads").key("counts").index(0)
        #expect(UDPPlugin().check(payload: Payload(count: UDPReceiverStats.maxExpected, size: 1), path: path).isEmpty)
        let problems = UDPPlugin().check(payload: Payload(count: UDPReceiverStats.maxExpected + 1, size: 1), path: path)
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("\(UDPReceiverStats.maxExpected + 1) messages") == true)
        #expect(UDPReceiverStats(expected: .max).expected == UDPReceiverStats.maxExpected)
        #expect(UDPReceiverStats(expected: -5).expected == 0)
    }

    @Test("100 000 mutated datagrams: no trap, the receiver never sized beyond the cell's count")
    func fuzzServerSession() throws {
        let payload = Payload(count: 1_000, size: 64)
        let cell = makeCell(payload: payload, seconds: 120)
        // Replies go to the discard port on loopback: nothing listens, nothing answers.
        let peer = SocketAddress(host: "127.0.0.1", port: 9)
        func header(_ t: UInt8, _ seq: UInt64) -> [UInt8] {
            [t, 0x01, 0x00, 0x00] + UInt32(7).wireBytes + seq.wireBytes + UInt64(1_000).wireBytes
        }
        let clean: [[UInt8]] = [
            header(0x01, 0) + UInt64(payload.count).wireBytes + UInt64(payload.size).wireBytes,
            header(0x03, 3), header(0x05, 1), header(0x07, 2), header(0x13, 0),
            header(0x10, 5) + [UInt8](repeating: 0xAB, count: payload.size),
            header(0x11, 0) + UInt64(1_000).wireBytes + UInt64(64_000).wireBytes + UInt64(1_000_000).wireBytes + UInt64(1).wireBytes,
            // The workload kinds: REQUEST {response bytes} + request, FRAME, FRAME_END
            // {sent, period, deadline, linger, from}, FRAME_PULL {frames, size, period}.
            header(0x20, 4) + UInt64(512).wireBytes + [UInt8](repeating: 0x5A, count: 40),
            header(0x22, 9) + [UInt8](repeating: 0x22, count: 160),
            header(0x23, 0) + UInt64(40).wireBytes + UInt64(20_000_000).wireBytes + UInt64(100_000_000).wireBytes
                + UInt64(0).wireBytes + UInt64(0).wireBytes,
            header(0x25, 0) + UInt64(50).wireBytes + UInt64(160).wireBytes + UInt64(20_000_000).wireBytes,
            // PULL {count, size}: bulk down, bounded by the cell's own payload.
            header(0x27, 0) + UInt64(100).wireBytes + UInt64(payload.size).wireBytes,
        ]
        var rng = WireFuzz(seed: 0x0D_A7A_F022)
        var outcomes: [String: Int] = [:]
        var accepted = 0
        var input = 0
        var pulls = 0, reports = 0, bulkPulls = 0
        while input < WireFuzz.inputs {
            // A fresh session every 50 inputs, so HELLOs keep meeting one with no client.
            let socket = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try socket.bind(SocketAddress(host: "127.0.0.1", port: 0))
            let session = UDPServerSession(socket: socket, cell: cell, stopper: CellCancellation())
            for _ in 0..<50 where input < WireFuzz.inputs {
                let (bytes, mutation) = rng.mutate(clean[rng.int(0...clean.count - 1)], pool: clean)
                bytes.withUnsafeBytes { session.handle($0, source: { peer }, arrival: 1, monotonicArrival: 1) }
                let expected = session.receiverStats.expected
                #expect(expected <= payload.count, "input \(input) (\(mutation)): the receiver was sized for \(expected) datagrams")
                let w = session.workloadState
                #expect(w.arrivals.count <= WorkloadSpec.Limits.frames && w.arrivals.allSatisfy { $0.seq < WorkloadSpec.Limits.frames })
                if let p = w.pulled {
                    #expect(
                        (1...WorkloadSpec.Limits.frames).contains(p.frames) && (1...UDPWorkloadLimits.maxFrameBytes).contains(p.size)
                            && UDPWorkloadLimits.periodNanos.contains(p.periodNanos), "input \(input) (\(mutation)): pulled \(p)")
                    pulls += 1
                }
                if let p = w.pulledData {
                    #expect((1...payload.count).contains(p.count) && (1...payload.size).contains(p.size), "input \(input) (\(mutation)): PULL \(p)")
                    bulkPulls += 1
                }
                if let r = w.frameReport {
                    #expect(r.sent <= WorkloadSpec.Limits.frames && r.received <= r.sent + w.arrivals.count)
                    reports += 1
                }
                if expected > 0 { accepted += 1 }
                outcomes[mutation, default: 0] += 1
                input += 1
            }
            // A FRAME_PULL's sender stops before its socket closes, as at a session's end.
            session.endWorkloads()
            socket.close()
        }
        print("udp server fuzz: \(WireFuzz.inputs) inputs, \(outcomes.sorted { $0.key < $1.key }), \(accepted) after a HELLO")
        #expect(accepted > 1_000, "clean HELLOs must still open sessions")
        #expect(outcomes["edge", default: 0] > 10_000)
        print("udp server fuzz: \(pulls) inputs after a FRAME_PULL started a sender, \(bulkPulls) after a PULL, \(reports) after a frame report")
        #expect(pulls > 100 && reports > 100 && bulkPulls > 100, "clean FRAME_PULLs, PULLs and FRAME_ENDs must still be taken")
    }
}
