import CNgtcp2
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// One connection's application state on the server (docs/protocol/quic.md).
final class ServerSession: QUICConnectionDelegate {
    let connection: QUICConnection
    private let token: CellToken
    private unowned let claim: CellClaim
    var onNewID: (([UInt8]) -> Void)?
    private var parsers: [Int64: FrameParser] = [:]
    /// This connection's part in the cell's bulk phase.
    private var intake = BulkIntake()
    /// The client's DONE, and once the REPORT is queued, when and up to which control-stream offset.
    private var report: (done: DoneBody?, sentAt: UInt64?, end: UInt64) = (nil, nil, 0)
    private var controlStream: Int64?

    /// Sends a session ticket once the handshake completed (`resumption`).
    private let sendsTicket: Bool
    /// The request, frame and pull streams of the workloads beyond the upload.
    let workload: ServerWorkloadStreams
    /// The receiving app (`CellContext.appLoop`): when it takes each bulk message and PING.
    private var app: ReceivingApp

    init(
        connection: QUICConnection, token: CellToken, claim: CellClaim, sendsTicket: Bool = false, appLoop: AppLoop = .none
    ) {
        app = ReceivingApp(appLoop)
        self.connection = connection
        workload = ServerWorkloadStreams(connection: connection)
        self.sendsTicket = sendsTicket
        self.token = token
        self.claim = claim
    }

    /// The session is over once the report has gone out and the client acknowledged
    /// it, or (its acknowledgement and CONNECTION_CLOSE both lost, say on a lossy
    /// link) the client stayed silent for `lingerNanos` since then: a client that still
    /// had the connection would have answered our retransmitted report.
    /// The REPORT is queued.
    var reportSent: Bool { report.sentAt != nil }

    func isComplete(now: UInt64) -> Bool {
        guard let sentAt = report.sentAt, !workload.isSending, let id = controlStream else { return false }
        if connection.ackedOffset(of: id).map({ $0 >= report.end }) ?? true { return true }
        let s = connection.stats
        return now > max(sentAt, connection.lastReadAt) + Self.lingerNanos(smoothedRTT: s.smoothed_rtt, rttVar: s.rttvar)
    }

    /// How long the server keeps retransmitting an unacknowledged report to a silent
    /// client: three probe timeouts, but at least 2 s, so that a fade on the radio link
    /// (its shadowing is correlated over 300 ms) does not take every copy, and at most
    /// 5 s. With three probe timeouts alone (about 0.4 s over AWDL's windows) a run of
    /// the field-study matrix on 2026-12-03 lost one quic cell of 216 at forest 10 m
    /// (10 % loss, in fades): the report and its retransmissions went into one fade,
    /// the server closed, its CONNECTION_CLOSE was lost too, and the client waited out
    /// its 30 s idle timeout. The wait costs nothing when the client acknowledges.
    static func lingerNanos(smoothedRTT: UInt64, rttVar: UInt64) -> UInt64 {
        let pto = smoothedRTT + max(4 * rttVar, 1_000_000) + 25_000_000
        return min(max(3 * pto, 2_000_000_000), 5_000_000_000)
    }

    func handshakeCompleted(_ connection: QUICConnection) {
        // Best effort: a client that gets no ticket says so (its priming connection fails).
        if sendsTicket { try? connection.tls.sendSessionTicket() }
    }
    func streamClosed(_ connection: QUICConnection, stream: Int64) {
        parsers[stream] = nil
        workload.closed(stream)
    }
    func issuedConnectionID(_ connection: QUICConnection, _ cid: [UInt8]) { onNewID?(cid) }

    func received(_ connection: QUICConnection, stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws {
        guard stream & 0x3 == 0 else { throw FramingError(description: "stream \(stream) is not a client-initiated bidirectional stream") }
        if stream != 0, claim.probeFlow === self { throw FramingError(description: "bulk stream \(stream) on the probe flow") }
        // Stream 0 (the client's first bidirectional stream) is the control stream; the others carry bulk data.
        let bulk = stream != 0
        var parser = parsers[stream] ?? FrameParser()
        // A later stream's first frame says what it is: DATA a bulk stream of the upload,
        // REQUEST, FRAME, FRAME_PULL or PULL a workload stream (`ServerWorkloadStreams`).
        try parser.feed(
            data,
            onData: { n, complete in
                guard bulk else { throw FramingError(description: "DATA frame on the control stream") }
                if workload.noteBulkData(on: stream) {
                    countBulk(n, complete: complete, on: stream)
                } else {
                    try workload.data(n, complete: complete, on: stream)
                }
            },
            onControl: { frame in
                guard bulk else {
                    try control(frame, on: stream)
                    return
                }
                try workload.control(frame, on: stream)
            })
        if fin {
            guard parser.atFrameBoundary else { throw FramingError(description: "stream \(stream) ended inside a frame") }
            if workload.handles(stream) {
                try workload.ended(stream)
            } else if bulk {
                intake.streamEnded()
                // End our (empty) direction too: ngtcp2 0.12 frees a stream, and returns
                // its credit to the client, only once both directions are finished.
                connection.sender(stream).finish()
            }
            parsers[stream] = nil
        } else {
            parsers[stream] = parser
        }
        maybeReport()
    }

    /// `n` bytes of a bulk message arrived (`complete`: its last): the counts, the
    /// series and the receiver's span.
    private func countBulk(_ n: Int, complete: Bool, on stream: Int64) {
        guard !intake.released else { return }
        let now = MonotonicClock.now()
        intake.count(n, complete: complete, on: stream, at: now, takenAt: complete ? app.taken(arrivedAt: now) : now)
    }

    /// With `reconnect`, the cell's client connection ended before its REPORT: the
    /// client comes back with RESUME rather than the session failing.
    var awaitsResume: Bool {
        guard claim.acceptsResume, !reportSent, !intake.released, claim.resumes < ReconnectPolicy.maxReconnects else { return false }
        // The client closing with an error is its giving up, not a lost link.
        if case .peerClosed? = connection.failure { return false }
        return !connection.peerClosedCleanly
    }

    /// This connection no longer carries the cell's session (lost, or a RESUME came on
    /// another): the bytes of its messages cut short leave the count, and whatever it
    /// still delivers is ignored, so the resent messages count once.
    func release() {
        guard intake.release() else { return }
        if claim.holder === self { claim.holder = nil }
    }

    /// One frame on the control stream (docs/protocol/quic.md): HELLO or PROBE_HELLO
    /// claims the session, then PINGs are answered and DONE is kept for the report.
    private func control(_ frame: ControlFrame, on stream: Int64) throws {
        switch frame {
        case .hello(let presented):
            guard controlStream == nil else { throw FramingError(description: "second HELLO") }
            guard presented == token else { throw NotThisCell(description: "HELLO carries another cell's token (not this cell's client)") }
            guard claim.holder == nil else { throw NotThisCell(description: "this cell's client is already connected") }
            guard claim.receipt == nil else {
                throw NotThisCell(description: "this cell's session has begun; a re-made connection opens with RESUME")
            }
            claim.holder = self
            claim.receipt = intake.receipt
            controlStream = stream
            // Workload streams that came before HELLO (a lost packet) are answered now.
            workload.claim()
        case .resume(let presented):
            // `reconnect`: the cell's client again, on a new connection after losing its
            // last one; it sends on from the counts in RESUMED.
            guard controlStream == nil else { throw FramingError(description: "RESUME after HELLO") }
            guard presented == token else { throw NotThisCell(description: "RESUME carries another cell's token (not this cell's client)") }
            guard claim.acceptsResume else { throw NotThisCell(description: "RESUME to a cell without reconnect") }
            guard let shared = claim.receipt else { throw NotThisCell(description: "RESUME before the cell's session began with HELLO") }
            guard claim.resumes < ReconnectPolicy.maxReconnects else {
                throw NotThisCell(description: "this cell's client already resumed \(claim.resumes) times (at most \(ReconnectPolicy.maxReconnects))")
            }
            // The old connection may not have timed out here yet: it is superseded.
            claim.holder?.release()
            claim.holder = self
            claim.resumes += 1
            intake.receipt = shared
            controlStream = stream
            connection.sender(stream).append(
                copying: FrameEncoder.encode(.resumed(ResumedBody(messages: UInt64(shared.received.messages), bytes: UInt64(shared.received.bytes)))))
        case .probeHello(let presented):
            // A second connection of the cell's client for loaded probes only: it is
            // answered like any session but never ends the server's loop.
            guard controlStream == nil else { throw FramingError(description: "PROBE_HELLO after HELLO") }
            guard presented == token else { throw NotThisCell(description: "PROBE_HELLO carries another cell's token (not this cell's client)") }
            guard claim.probeFlow == nil else { throw NotThisCell(description: "this cell's probe flow is already connected") }
            guard !workload.hasDeferred else { throw FramingError(description: "workload streams on the probe flow") }
            claim.probeFlow = self
            controlStream = stream
        case .ping(let seq):
            try requireHello()
            if app.ping(seq, on: stream, now: MonotonicClock.now()) {
                connection.sender(stream).append(copying: FrameEncoder.encode(.pong(seq)))
            }
        case .done(let d):
            try requireHello()
            guard claim.probeFlow !== self else { throw FramingError(description: "DONE on the probe flow") }
            guard report.done == nil else { throw FramingError(description: "second DONE frame") }
            report.done = d
        case .pong, .report, .series, .resumed, .frameArrivals, .flowReport:
            throw FramingError(description: "client sent a server-only frame (\(frame))")
        case .request, .frame, .framePull, .pull, .flow:
            throw FramingError(description: "\(frame) on the control stream; it opens a workload stream of its own")
        }
    }

    /// When the next PONG the app still owes is due; nil when none.
    var nextPongDue: UInt64? { app.nextPongDue }

    /// Answers the PINGs the app has taken by `now`.
    func answerDuePongs(now: UInt64) {
        for p in app.duePongs(now: now) { connection.sender(p.stream).append(copying: FrameEncoder.encode(.pong(p.seq))) }
    }

    /// Nothing but HELLO may come first: a stray that speaks our protocol stops here.
    private func requireHello() throws {
        guard controlStream != nil else { throw NotThisCell(description: "the first control frame was not HELLO (not this cell's client)") }
    }

    /// The report goes out once DONE arrived and every bulk stream it announced has ended,
    /// right after the bulk series (SERIES), in the same packet when it fits.
    private func maybeReport() {
        guard !reportSent, !intake.released, let d = report.done, intake.finishedStreams >= d.streams, let control = controlStream else { return }
        report.sentAt = MonotonicClock.now()
        let r = intake.receipt
        let span = r.firstByteAt.map { r.lastByteAt - $0 } ?? 0
        // Only a client that asked gets the 40-byte REPORT; an older one could not read it.
        let messageSpan = d.wantsSpan ? r.received.spanNanos : nil
        let sender = connection.sender(control)
        sender.append(copying: FrameEncoder.encode(.series(r.received.series?.series)))
        sender.append(
            copying: FrameEncoder.encode(
                .report(
                    ReportBody(
                        messages: UInt64(r.received.messages), bytes: UInt64(r.received.bytes), streams: intake.finishedStreams,
                        receiveNanos: span, spanNanos: messageSpan))))
        report.end = sender.queuedEnd
    }
}
