import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// The client's half of the workloads beyond the upload (docs/WORKLOADS.md,
/// docs/protocol/tcp.md "Workloads"), after the probes, on the same connection.
extension StreamWorkloadClient {
    /// Runs `workload` (anything but the upload, which is `bulk(_:...)`) into `m`.
    public func run(_ workload: WorkloadSpec, payload: Payload?, into m: inout TransportMeasurement) throws {
        switch workload.kind {
        case .bulk(.up):
            if let payload { try bulk(payload, into: &m) }
        case .bulk(.down):
            if let payload { try pull(payload, into: &m) }
        case .bulk(.bidir):
            if let payload { try bulk(payload, alsoDown: true, into: &m) }
        case .requestResponse(let n, let a, let b, let c):
            try transact(requests: n, requestBytes: a, responseBytes: b, concurrency: c, into: &m)
        case .isochronous(let size, let period, let frames, let direction, let deadline):
            try isochronous(frames: frames, size: size, periodNanos: period, direction: direction, deadlineNanos: deadline, into: &m)
        }
    }

    /// PULL, then the server's DATA until PUSHED: the download, timed from the PULL
    /// written to the last message read.
    func pull(_ payload: Payload, into m: inout TransportMeasurement) throws {
        let start = MonotonicClock.now()
        try send(StreamFraming.controlFrame(.pull, [UInt64(payload.count), UInt64(payload.size)]), during: "sending PULL")
        var count = StreamDataCount()
        reader.waitingFor = "the server's DATA after PULL"
        guard let frame = try reader.nextControl(counting: &count) else {
            throw TransportError("\(transport) client: the server closed the connection during the download")
        }
        guard frame.type == .pushed, frame.body.count == 16 else {
            throw TransportError("\(transport) client: expected PUSHED after the download, got a \(frame.type) frame")
        }
        let nanos = (count.lastMessageAt ?? reader.filledAt) - start
        let sent = (Int(frame.body.readBE(UInt64.self, at: 0)), Int(frame.body.readBE(UInt64.self, at: 8)))
        let flow = DirectionalDelivery.Flow(
            delivery: Delivery(
                sentMessages: sent.0, receivedMessages: count.messages, sentBytes: sent.1,
                receivedBytes: count.bytes), nanos: nanos)
        m.byDirection = DirectionalDelivery(down: flow)
        m.delivery = flow.delivery
        m.bulkNanos = nanos
        m.receiverSpanNanos = count.spanNanos
        checkDelivered(flow.delivery, of: payload, way: "down", into: &m)
    }

    /// The down half of a bidir bulk phase, as the bulk reader counted it: the measurement
    /// gets both directions, the total, and no receiver span (two receivers ran).
    func recordDown(_ down: StreamEchoCollector.Down, of payload: Payload, start: UInt64, into m: inout TransportMeasurement) throws {
        guard down.pushed.count == 16 else { throw TransportError("\(transport) client: malformed PUSHED (\(down.pushed.count) bytes)") }
        let body = down.pushed
        let sentMessages = body.withUnsafeBytes { Int($0.readBE(UInt64.self, at: 0)) }
        let sentBytes = body.withUnsafeBytes { Int($0.readBE(UInt64.self, at: 8)) }
        let nanos = (down.count.lastMessageAt ?? down.pushedAt) - start
        let downFlow = DirectionalDelivery.Flow(
            delivery: Delivery(
                sentMessages: sentMessages, receivedMessages: down.count.messages,
                sentBytes: sentBytes, receivedBytes: down.count.bytes), nanos: nanos)
        let up = m.delivery.map { DirectionalDelivery.Flow(delivery: $0, nanos: m.bulkNanos ?? 0) }
        let flows = DirectionalDelivery(up: up, down: downFlow)
        m.byDirection = flows
        if let total = flows.total {
            m.delivery = total.delivery
            m.bulkNanos = total.nanos
        }
        m.receiverSpanNanos = nil
        checkDelivered(downFlow.delivery, of: payload, way: "down", into: &m)
    }

    private func checkDelivered(_ d: Delivery, of payload: Payload, way: String, into m: inout TransportMeasurement) {
        guard d.receivedMessages != payload.count || d.receivedBytes != payload.count * payload.size else { return }
        m.status = .partial
        m.error = [m.error, "\(transport) client received \(d.receivedMessages) of \(payload.count) messages \(way) (\(d.receivedBytes) bytes)"]
            .compactMap { $0 }.joined(separator: "; ")
    }

    /// `requests` transactions: the request's DATA then REQUEST {seq, response bytes},
    /// answered by DATA then RESPONSE {seq}; at most `concurrency` outstanding. Each
    /// transaction is timed from its request's write to the read that completed its
    /// response (a stream answers in order).
    func transact(
        requests n: Int, requestBytes a: Int, responseBytes b: Int, concurrency c: Int,
        into m: inout TransportMeasurement
    ) throws {
        var request = StreamWorkloadFrames.dataFrame(size: a) + StreamFraming.controlFrame(.request, [UInt32(0), UInt32(b)])
        let seqAt = request.count - 8
        var sentAt = [UInt64](repeating: 0, count: n)
        var times: [UInt64] = []
        times.reserveCapacity(n)
        var next = 0
        func sendNext() throws {
            request.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(next).bigEndian, toByteOffset: seqAt, as: UInt32.self) }
            sentAt[next] = MonotonicClock.now()
            try send(request, during: "sending request \(next)")
            next += 1
        }
        let start = MonotonicClock.now()
        while next < min(c, n) { try sendNext() }
        var responses = StreamDataCount()
        while times.count < n {
            reader.waitingFor = "the response to request \(times.count)"
            guard let frame = try reader.nextControl(counting: &responses) else {
                throw TransportError("\(transport) client: the server closed the connection after \(times.count) of \(n) responses")
            }
            guard frame.type == .response, frame.body.count == 4, Int(frame.body.readBE(UInt32.self, at: 0)) == times.count else {
                throw TransportError("\(transport) client: expected the RESPONSE to request \(times.count), got a \(frame.type) frame")
            }
            times.append(reader.filledAt - sentAt[times.count])
            if next < n { try sendNext() }
        }
        m.transactionNanos = times
        m.bulkNanos = MonotonicClock.elapsed(since: start)
        m.delivery = Delivery(sentMessages: n, receivedMessages: responses.messages, sentBytes: n * a, receivedBytes: responses.bytes)
    }

    func send(_ bytes: [UInt8], during phase: String) throws {
        try bytes.withUnsafeBytes { try send($0, during: phase) }
    }

    /// Isochronous frames: up, the client sends frame i at start + i x period and the
    /// server reports what it saw (FRAME_END, FRAME_REPORT); down, FRAME_PULL has the
    /// server send them and this side times them; bidir, both at once. A reader
    /// thread takes everything the server sends while this thread sends.
    func isochronous(
        frames: Int, size: Int, periodNanos: UInt64, direction: WorkloadSpec.Direction, deadlineNanos: UInt64,
        into m: inout TransportMeasurement
    ) throws {
        let up = direction != .down, down = direction != .up
        let collector = FrameCollector(self, expectsDown: down, expectsReport: up)
        collector.start()
        var finished = false
        defer { if !finished { collector.abandon() } }
        if down {
            try send(StreamFraming.controlFrame(.framePull, [UInt32(frames), UInt32(size), periodNanos]), during: "sending FRAME_PULL")
        }
        if up {
            do {
                try StreamWorkloadFrames.sendFrames(count: frames, size: size, periodNanos: periodNanos) { try send($0, during: "sending frames") }
                try send(StreamFraming.controlFrame(.frameEnd, [UInt32(frames), periodNanos, deadlineNanos]), during: "sending FRAME_END")
            } catch {
                throw collector.failure() ?? error
            }
        }
        finished = true
        let seen = try collector.finish()
        var report: FrameReport?
        if up, let r = seen.report {
            report = FrameReport(sent: frames, received: r.received, late: r.late, deadlineNanos: deadlineNanos, delayNanos: r.delays)
        }
        if down {
            let mine = FrameSchedule.report(arrivals: seen.arrivals, sent: seen.downSent, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
            report = report.map { $0 + mine } ?? mine
        }
        m.frames = report
        if let r = report, r.received < r.sent {
            m.status = .partial
            m.error = "\(transport): \(r.received) of \(r.sent) frames arrived"
        }
    }
}

/// The client's reading thread of an isochronous flow: the server's frames (down),
/// FRAMES_SENT, and the FRAME_REPORT of the client's frames (up). A reading error
/// shuts the stream down, which ends a write blocked on a full window.
final class FrameCollector: Sendable {
    struct Seen: Sendable {
        var arrivals: [(seq: Int, at: UInt64)] = []
        var downSent = 0
        var report: (received: Int, late: Int, delays: [UInt64])?
    }
    private let connection: HelperConnection
    private let expectsDown: Bool
    private let expectsReport: Bool
    private let ended = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<Seen, any Error>?>(nil)

    init(_ client: StreamWorkloadClient, expectsDown: Bool, expectsReport: Bool) {
        connection = HelperConnection(client: client)
        self.expectsDown = expectsDown
        self.expectsReport = expectsReport
    }

    func start() {
        CPUAccount.startThread("\(connection.client.transport) frame reader") { [self] in
            let result = Result { try read() }
            if case .failure = result { connection.client.stream.shutdown() }
            outcome.withLock { $0 = result }
            ended.signal()
        }
    }

    /// The reader's error if it has ended with one (the cause of a failed write).
    func failure() -> (any Error)? {
        guard ended.wait(timeout: .now() + .seconds(1)) == .success else { return nil }
        ended.signal()
        if case .failure(let e) = outcome.withLock({ $0 }) { return e }
        return nil
    }

    func finish() throws -> Seen {
        ended.wait()
        ended.signal()
        return try outcome.withLock { $0! }.get()
    }

    /// The sender failed: stop the reader (its error goes unread).
    func abandon() { connection.client.stream.shutdown() }

    private func read() throws -> Seen {
        let client = connection.client, reader = client.reader
        let who = "\(client.transport) client"
        var seen = Seen()
        var downDone = !expectsDown
        var delays: [UInt64] = []
        var reportDone = !expectsReport
        var ignored = StreamDataCount()
        while !(downDone && reportDone) {
            reader.waitingFor = downDone ? "the server's FRAME_REPORT" : "the server's frames"
            guard let frame = try reader.nextControl(counting: &ignored) else {
                throw TransportError("\(who): the server closed the connection during the frames")
            }
            switch frame.type {
            case .frame where expectsDown && !downDone && frame.body.count == 4:
                let seq = Int(frame.body.readBE(UInt32.self, at: 0))
                guard seen.arrivals.count < WorkloadSpec.Limits.frames, seq < WorkloadSpec.Limits.frames else {
                    throw TransportError("\(who): frame \(seq) is beyond the frames asked for")
                }
                seen.arrivals.append((seq, reader.filledAt))
            case .framesSent where expectsDown && !downDone && frame.body.count == 4:
                seen.downSent = Int(frame.body.readBE(UInt32.self, at: 0))
                downDone = true
            case .frameReport where expectsReport && !reportDone:
                guard let (received, late) = FrameReportFrames.decode(frame.body, into: &delays), delays.count <= received else {
                    throw TransportError("\(who): malformed FRAME_REPORT (\(frame.body.count) bytes)")
                }
                if delays.count == received {
                    seen.report = (received, late, delays)
                    reportDone = true
                }
            default:
                throw TransportError("\(who): unexpected \(frame.type) frame during the frames")
            }
        }
        return seen
    }
}
