import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchWorkloads
import Testing

/// The workloads' one definition (PeerBenchWorkloads), apart from any transport: the
/// schedules and windows are state machines, so they are driven here by hand, with
/// made-up clocks, the way each transport drives them over its sockets.
@Suite struct WorkloadDefinitionTests {
    @Test("a frame timetable hands out frames as they fall due, what a late sender owes at once, none early")
    func timetable() {
        var t = FrameTimetable(frames: 5, periodNanos: 20, start: 1_000)
        #expect(t.takeDue(now: 999).isEmpty)
        #expect(t.nanosUntilDue(now: 999) == 1)
        #expect(t.takeDue(now: 1_000) == 0..<1)
        #expect(t.takeDue(now: 1_019).isEmpty && t.nanosUntilDue(now: 1_019) == 1)
        // Blocked from 1 020 to 1 065: frames 1, 2 and 3 go together, frame 4 waits its turn.
        #expect(t.takeDue(now: 1_065) == 1..<4)
        #expect(t.nextDue == 1_080 && !t.isFinished)
        #expect(t.takeDue(now: 5_000) == 4..<5)
        #expect(t.isFinished && t.nextDue == nil && t.nanosUntilDue(now: 5_000) == nil)
    }

    @Test("a blocking sender keeps the schedule and stops when told")
    func blockingSender() throws {
        var sent: [Int] = []
        var t = FrameTimetable(frames: 4, periodNanos: 2_000_000)
        #expect(try t.send { sent.append($0) } == 4)
        #expect(sent == [0, 1, 2, 3])
        var stopped = FrameTimetable(frames: 4, periodNanos: 1_000_000_000)
        var count = 0
        #expect(try stopped.send(stopped: { count >= 1 }) { _ in count += 1 } == 1, "stop is heard within a slice, not after a 1 s period")
    }

    @Test("frame arrivals count each frame once and refuse numbers beyond the flow")
    func arrivals() {
        var a = FrameArrivals(limit: 3)
        #expect(a.record(seq: 0, at: 100) == .first)
        #expect(a.record(seq: 2, at: 150) == .first)
        #expect(a.record(seq: 2, at: 160) == .duplicate)
        #expect(a.record(seq: 3, at: 170) == .outOfBounds)
        let r = a.report(sent: 3, periodNanos: 20, deadlineNanos: 5)
        // Anchored at the least-delayed frame (0): frame 2 came 150 - 40 - 100 = 10 ns behind it.
        #expect(r.received == 2 && r.lost == 1 && r.delayNanos == [0, 10] && r.late == 1)
    }

    /// A channel whose responses are scripted: `answers[i]` are the sequence numbers that
    /// arrive after request i is sent (a late or doubled one included); nil where the
    /// wait for one ends empty.
    struct ScriptedChannel: TransactionChannel {
        var answers: [Int: [Int?]]
        var queue: [Int?] = []
        var now: UInt64 = 0
        var sent: [Int] = []

        mutating func sendRequest(_ seq: Int) throws -> UInt64 {
            sent.append(seq)
            queue += answers[seq] ?? []
            now += 10
            return now
        }

        mutating func nextResponse(until: UInt64?) throws -> TransactionResponse? {
            guard !queue.isEmpty, let seq = queue.removeFirst() else { return nil }
            now += 5
            return (seq: seq, bytes: 100, at: now)
        }
    }

    @Test("transactions: the window stays at the concurrency, a lost one gives its place, a late answer to it counts nothing")
    func transactions() throws {
        let spec = WorkloadSpec(
            name: "rpc", kind: .requestResponse(requests: 4, requestBytes: 10, responseBytes: 100, concurrency: 2), json: nil)
        var t = try #require(Transactions(spec, lostAfterNanos: 1_000_000))
        // Request 1 is never answered in time: its wait ends empty, then its answer comes late.
        var channel = ScriptedChannel(answers: [0: [0], 1: [nil], 2: [1, 2, 2], 3: [3]])
        var m = TransportMeasurement()
        let lost = try t.run(over: &channel, transport: "udp", into: &m)
        #expect(lost == 1 && channel.sent == [0, 1, 2, 3] && t.peakOutstanding == 2)
        #expect(m.transactionNanos?.count == 3)
        #expect(m.delivery == Delivery(sentMessages: 4, receivedMessages: 3, sentBytes: 40, receivedBytes: 300))
        #expect(m.status == .partial && m.error == "udp: 1 of 4 transactions got no response within 1 ms (lost)")
    }

    @Test("a short direction is partial where the transport retransmits, the measurement where it does not")
    func directions() {
        let payload = Payload(count: 10, size: 100)
        let full = DirectionalDelivery.Flow(
            delivery: Delivery(sentMessages: 10, receivedMessages: 10, sentBytes: 1_000, receivedBytes: 1_000), nanos: 50)
        let short = DirectionalDelivery.Flow(
            delivery: Delivery(sentMessages: 10, receivedMessages: 7, sentBytes: 1_000, receivedBytes: 700), nanos: 80)
        var tcp = TransportMeasurement()
        tcp.recordDirections(up: full, down: short, receiverSpanNanos: nil, expected: payload, transport: "tcp")
        #expect(tcp.status == .partial && tcp.error == "tcp: 7 of 10 messages arrived down (700 bytes)")
        #expect(tcp.delivery?.receivedMessages == 17 && tcp.bulkNanos == 80, "the total: counts summed, the longer time")
        var udp = TransportMeasurement()
        udp.recordDirections(up: nil, down: short, receiverSpanNanos: 70, expected: nil, transport: "udp")
        #expect(udp.status == .ok && udp.error == nil && udp.delivery?.lossRatio == 0.3 && udp.receiverSpanNanos == 70)
    }

    @Test("frames of both directions make one report; a missing frame makes the cell partial")
    func frames() {
        let up = FrameReport(sent: 3, received: 3, late: 0, deadlineNanos: 9, delayNanos: [0, 1, 2])
        let down = FrameReport(sent: 3, received: 2, late: 1, deadlineNanos: 9, delayNanos: [0, 12])
        var m = TransportMeasurement()
        m.recordFrames(up: up, down: down, transport: "quic")
        #expect(m.frames == FrameReport(sent: 6, received: 5, late: 1, deadlineNanos: 9, delayNanos: [0, 1, 2, 0, 12]))
        #expect(m.status == .partial && m.error == "quic: 5 of 6 frames arrived")
    }
}
