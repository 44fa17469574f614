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
        case .isochronous:
            try isochronous(spec, on: connection, into: &m)
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

    /// The frames (`Isochronous`) over `QUICFrameChannel`: a frame stream each way.
    private func isochronous(_ workload: WorkloadSpec, on connection: QUICConnection, into m: inout TransportMeasurement) throws {
        guard let isochronous = Isochronous(workload) else { return }
        var channel = QUICFrameChannel(client: self, connection: connection)
        try isochronous.run(over: &channel, transport: "quic", into: &m)
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
        let pulled = streams.pulls[id]?.received ?? ReceivedMessages()
        let downFlow = pulled.flow(sent: (payload.count, payload.count * payload.size), since: start, endedAt: MonotonicClock.now())
        if direction == .down {
            // Nothing went up: DONE(0, 0, 0) and the REPORT end the session.
            _ = try bulkPhase(
                count: 0, size: 0, block: MessageBlock(size: 0, seed: seed), askSpan: false, on: connection,
                stream: control, into: &m)
        }
        // Down alone: this side received, its span from the first whole message to the
        // last; both ways, two receivers and no single span.
        let span = direction == .down ? pulled.spanNanos : nil
        m.recordDirections(up: upFlow, down: downFlow, receiverSpanNanos: span, expected: payload, transport: "quic")
    }
}
