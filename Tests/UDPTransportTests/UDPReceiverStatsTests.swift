import PeerBenchCore
import PeerBenchWorkloads
import Testing
import TransportTestSupport

@testable import UDPTransport

@Suite("UDP receiver accounting", .timeLimit(.minutes(3)))
struct UDPReceiverStatsTests {
    @Test("loss, reordering, duplicates and out-of-range sequence numbers")
    func accounting() {
        var s = UDPReceiverStats(expected: 8)
        // 6 never arrives; 2 and 4 arrive late; 2 arrives twice; 8 was never announced.
        for (i, seq) in [0, 1, 3, 2, 2, 5, 4, 7, 8].enumerated() {
            s.record(sequence: UInt64(seq), payloadBytes: 100, sentNanos: UInt64(seq) * 1_000, arrivedNanos: UInt64(i) * 1_000 + 500)
        }
        #expect(s.received == 7)
        #expect(s.receivedBytes == 700)
        #expect(s.duplicated == 1)
        #expect(s.reordered == 2)
        #expect(s.outOfRange == 1)
        #expect(!s.complete)
        #expect(s.jitter.samples == 7)
    }

    @Test("in-order arrivals are neither reordered nor duplicated, and complete")
    func inOrder() {
        var s = UDPReceiverStats(expected: 130)  // spans three bitmap words
        for seq in 0..<130 { s.record(sequence: UInt64(seq), payloadBytes: 1, sentNanos: 0, arrivedNanos: 0) }
        #expect(s.received == 130 && s.reordered == 0 && s.duplicated == 0 && s.complete)
        s.record(sequence: 129, payloadBytes: 1, sentNanos: 0, arrivedNanos: 0)
        s.record(sequence: 64, payloadBytes: 1, sentNanos: 0, arrivedNanos: 0)
        #expect(s.duplicated == 2 && s.received == 130)
    }

    @Test("jitter follows RFC 3550 on a hand-computed sequence")
    func jitter() {
        var s = UDPReceiverStats(expected: 3)
        // Transits 10, 14, 8 ms: J = 0 + (4 - 0)/16 = 0.25; J = 0.25 + (6 - 0.25)/16 = 0.609375 ms.
        s.record(sequence: 0, payloadBytes: 1, sentNanos: 0, arrivedNanos: 10_000_000)
        s.record(sequence: 1, payloadBytes: 1, sentNanos: 20_000_000, arrivedNanos: 34_000_000)
        s.record(sequence: 2, payloadBytes: 1, sentNanos: 40_000_000, arrivedNanos: 48_000_000)
        #expect(abs(s.jitter.jitterMs - 0.609375) < 1e-9)
    }

    @Test("the pacer's schedule is absolute and counts due datagrams")
    func pacer() {
        // 1000-byte payloads at 8 Mbit/s: one every millisecond.
        let p = MessageSchedule(rateMbps: 8, payloadBytes: 1_000, start: 5_000_000)
        #expect(p.due(0) == 5_000_000)
        #expect(p.due(10) == 15_000_000)
        #expect(p.dueCount(at: 4_000_000) == 0)
        #expect(p.dueCount(at: 5_000_000) == 1)
        #expect(p.dueCount(at: 7_500_000) == 3)
    }

    @Test("headers round-trip through their wire form")
    func header() {
        let h = UDPDatagramHeader(type: .data, session: 0xDEAD_BEEF, sequence: 1 << 40, timestamp: 123_456_789)
        let bytes = h.datagram([7, 9])
        #expect(bytes.count == 40)
        #expect(Array(bytes[0..<8]) == [0x10, 1, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF])
        bytes.withUnsafeBytes { p in
            #expect(UDPDatagramHeader(p) == h)
            #expect(p.field(0) == 7 && p.field(1) == 9 && p.field(2) == 0)
            #expect(UDPDatagramHeader(UnsafeRawBufferPointer(rebasing: p[0..<23])) == nil)
        }
    }
}
