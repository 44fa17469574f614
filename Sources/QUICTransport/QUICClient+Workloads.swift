import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The workloads beyond the upload (docs/WORKLOADS.md; docs/protocol/quic.md section
/// 4c), run after the probes on the cell's connection, each on streams of its own:
/// a stream per request, a frame stream each way, a pull stream for the download.
/// The session then ends as every session does: DONE and the server's REPORT.
extension QUICClient {
    func runWorkload(
        _ spec: WorkloadSpec, payload: Payload?, seed: UInt64, on connection: QUICConnection, control: Int64,
        into m: inout TransportMeasurement
    ) throws {
        switch spec.kind {
        case .bulk(let direction) where spec.streams > 1:
            // Parallel streams end as the other workloads: DONE(0, 0, 0) below.
            try parallelBulk(
                direction, streams: spec.streams, payload: payload ?? Payload(count: 0, size: 0), seed: seed,
                on: connection, into: &m)
        case .bulk(let direction):
            try bulk(direction, payload: payload ?? Payload(count: 0, size: 0), seed: seed, on: connection, control: control, into: &m)
            return
        case .requestResponse:
            try transact(spec, on: connection, into: &m)
        case .isochronous(let size, let period, let frames, let direction, let deadline):
            try isochronous(
                frames: frames, size: size, periodNanos: period, direction: direction, deadlineNanos: deadline,
                on: connection, into: &m)
        }
        // Nothing went up as bulk: DONE(0, 0, 0) and the server's REPORT end the session.
        let kept = m.bulkNanos
        _ = try bulkPhase(
            count: 0, size: 0, block: MessageBlock(size: 0, seed: seed), askSpan: false, on: connection,
            stream: control, into: &m)
        m.bulkNanos = kept
    }

    /// Opens a client bidirectional stream, waiting in the event loop while the server's
    /// stream limit (MAX_STREAMS) allows none.
    func openStream(_ connection: QUICConnection, for phase: String) throws -> Int64 {
        var id: Int64?
        try pump(phase) {
            id = connection.openBidiStream()
            return id != nil
        }
        return id!
    }

    // MARK: Request-response

    /// The transactions (`Transactions`), each on a stream of its own
    /// (`QUICTransactionChannel`): they never wait for each other (no head-of-line
    /// blocking between streams); QUIC retransmits, so every one is answered.
    private func transact(_ workload: WorkloadSpec, on connection: QUICConnection, into m: inout TransportMeasurement) throws {
        guard var transactions = Transactions(workload) else { return }
        var channel = QUICTransactionChannel(client: self, connection: connection, transactions)
        try transactions.run(over: &channel, transport: "quic", into: &m)
        // How many request streams were open at once at most (the concurrency really used).
        workloadStreams.extra["request_streams_peak"] = JSONValue(transactions.peakOutstanding)
        workloadStreams.extra["request_streams"] = JSONValue(transactions.sent)
    }

    // MARK: Isochronous

    /// Up: a frame stream carries FRAME(i) and a DATA of the frame's size, frame i handed
    /// to QUIC at start + i x period (one that falls behind, its window full in an outage,
    /// goes with what it owes at once), then FIN; the server answers on that stream with
    /// its arrival times (FRAME_ARRIVALS). Down: FRAME_PULL on a stream of its own has the
    /// server send the frames on its schedule, and this side stamps them. Bidir: both.
    private func isochronous(
        frames: Int, size: Int, periodNanos: UInt64, direction: WorkloadSpec.Direction, deadlineNanos: UInt64,
        on connection: QUICConnection, into m: inout TransportMeasurement
    ) throws {
        let streams = workloadStreams
        let up = direction != .down, down = direction != .up
        if down {
            let id = try openStream(connection, for: "opening the frame-down stream")
            streams.expectFrames(on: id)
            let s = connection.sender(id)
            s.append(
                copying: FrameEncoder.encode(.framePull(FramePullBody(frames: UInt64(frames), frameBytes: UInt64(size), periodNanos: periodNanos))))
            s.finish()
        }
        let upStream = up ? try openStream(connection, for: "opening the frame-up stream") : nil
        if let upStream { streams.expectArrivals(on: upStream) }
        var timetable = FrameTimetable(frames: frames, periodNanos: periodNanos)
        try pump(
            "isochronous frames",
            wakeIn: { upStream == nil ? nil : timetable.nanosUntilDue(now: MonotonicClock.now()) }
        ) {
            if let upStream, !timetable.isFinished {
                let s = connection.sender(upStream)
                for i in timetable.takeDue(now: MonotonicClock.now()) {
                    s.append(copying: FrameEncoder.encode(.frame(UInt64(i))) + FrameEncoder.header(.data, length: UInt32(size)))
                    s.appendFiller(size)
                }
                if timetable.isFinished { s.finish() }
            }
            return (!up || streams.upArrivals != nil) && (!down || streams.downEnded)
        }
        // More frames than were sent is the server's error, not a measurement.
        let downFrames = streams.downArrivals.arrivals.count
        guard (streams.upArrivals?.count ?? 0) <= frames, downFrames <= frames else {
            throw QUICFailure.protocolViolation(
                "the server reported \(streams.upArrivals?.count ?? 0) arrivals and sent \(downFrames) frames; \(frames) were due")
        }
        // As tcp's: the frames are the measurement (no delivery or bulk time, so no throughput).
        m.recordFrames(
            up: up
                ? streams.upArrivals.map {
                    FrameSchedule.report(
                        arrivals: $0.enumerated().map { ($0.offset, $0.element) }, sent: frames, periodNanos: periodNanos,
                        deadlineNanos: deadlineNanos)
                } : nil,
            down: down ? streams.downArrivals.report(sent: frames, periodNanos: periodNanos, deadlineNanos: deadlineNanos) : nil,
            transport: "quic")
    }

    // MARK: Bulk down and bidir

    /// Down: PULL(count, size) on a stream of its own; the server sends the messages on
    /// that stream and ends it. Timed from the PULL handed to QUIC to the last whole
    /// message read. Bidir: the PULL, then the upload's bulk phase at once (its DONE and
    /// REPORT as always), then the rest of the download.
    private func bulk(
        _ direction: WorkloadSpec.Direction, payload: Payload, seed: UInt64, on connection: QUICConnection, control: Int64,
        into m: inout TransportMeasurement
    ) throws {
        let streams = workloadStreams
        let id = try openStream(connection, for: "opening the pull stream")
        streams.expectPull(on: id)
        let s = connection.sender(id)
        s.append(copying: FrameEncoder.encode(.pull(count: UInt64(payload.count), size: UInt64(payload.size))))
        s.finish()
        let start = MonotonicClock.now()
        var upFlow: DirectionalDelivery.Flow?
        if direction == .bidir {
            let block = MessageBlock(size: payload.size, seed: seed)
            _ = try bulkPhase(
                count: payload.count, size: payload.size, block: block, askSpan: false, on: connection,
                stream: control, bulkStart: start, into: &m)
            withExtendedLifetime(block) {}
            guard let r = log.report else { throw QUICFailure.protocolViolation("no REPORT after the bulk phase") }
            upFlow = DirectionalDelivery.Flow(
                delivery: Delivery(
                    sentMessages: payload.count, receivedMessages: Int(r.messages),
                    sentBytes: payload.count * payload.size, receivedBytes: Int(r.bytes)),
                nanos: m.bulkNanos ?? 0)
            m.bulkSeries = log.series
        }
        try pump("download") { streams.pullEnded }
        let downNanos = (streams.lastPulledAt ?? MonotonicClock.now()) - start
        let downFlow = DirectionalDelivery.Flow(
            delivery: Delivery(
                sentMessages: payload.count, receivedMessages: streams.pulledMessages,
                sentBytes: payload.count * payload.size, receivedBytes: streams.pulledBytes),
            nanos: downNanos)
        if direction == .down {
            // Nothing went up: DONE(0, 0, 0) and the REPORT end the session.
            _ = try bulkPhase(
                count: 0, size: 0, block: MessageBlock(size: 0, seed: seed), askSpan: false, on: connection,
                stream: control, into: &m)
        }
        // Down alone: this side received, its span from the first whole message to the
        // last; both ways, two receivers and no single span.
        let span = direction == .down ? streams.firstPulledAt.flatMap { f in streams.lastPulledAt.map { $0 - f } } : nil
        m.recordDirections(up: upFlow, down: downFlow, receiverSpanNanos: span, expected: payload, transport: "quic")
    }
}
