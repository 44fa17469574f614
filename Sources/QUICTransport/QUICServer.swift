#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import GnuTLSSupport
import PeerBenchSystem
import PeerBenchPlugin
import Logging

/// The server side of one cell: a UDP socket and a single-threaded event loop that
/// accepts QUIC connections, answers probes, counts bulk messages and reports them.
///
/// It serves one client session, the cell's: the connection whose first control
/// frame is a HELLO with this cell's token (`CellToken`). The loop ends when that
/// connection is over (normally: the client has acknowledged the report). Any other
/// connection (garbage, replayed Initials, a stray client that completes a handshake
/// with our ALPN) is refused with application error 3 once it sends something else
/// first, or left to its handshake or idle timeout, and never ends the loop.
// @unchecked: it owns GnuTLS credentials and ngtcp2 connections (C handles), built on the bind thread and then used only by `run`'s thread; other threads only read `address` and call `stop` (an eventfd write).
final class QUICServerLoop: @unchecked Sendable {
    /// At most this many connections at once, so a flood of Initials cannot make the
    /// server hold unbounded state (each connection is bounded by its flow-control windows).
    static let maxConnections = 8

    let channel: UDPChannel
    let address: SocketAddress
    private let local: SockAddrBox
    private let config: QUICConfiguration
    private let credentials: GnuTLSCredentials
    /// Ticket key and anti-replay memory shared by all connections (`resumption`); nil = off.
    private let resumption: QUICServerResumption?
    private let token: CellToken
    /// Which connection proved to be the cell's client (at most one).
    private let claim: CellClaim
    private var sessions: [ServerSession] = []
    private var routes: [[UInt8]: ServerSession] = [:]
    private let readPath: UnsafeMutablePointer<ngtcp2_path_storage>
    private let logger: Logger

    /// Binds on `server` (`Endpoint.bindServer`). Call inside the server endpoint (its network namespace).
    init(server: Endpoint, config: QUICConfiguration, token: CellToken, logger: Logger, serviceClass: ServiceClass) throws {
        channel = try UDPChannel(family: SocketAddress(host: server.address, port: 0).family, serviceClass: serviceClass)
        address = try server.bindServer(channel.socket)
        local = try SockAddrBox(address)
        self.config = config
        self.token = token
        self.logger = logger
        claim = CellClaim(acceptsResume: config.reconnect != nil)
        credentials = try QUICConnection.tlsCredentials(caFile: config.mutualTLS ? config.caFile : nil, certFile: config.certFile, keyFile: config.keyFile)
        resumption = config.resumption
            ? try QUICServerResumption(earlyData: config.zeroRTT, windowMilliseconds: config.antiReplayWindowMilliseconds ?? 10_000) : nil
        readPath = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(readPath)
    }

    deinit { readPath.deallocate() }

    /// Ends `run` soon. Safe from any thread.
    func stop() { channel.wake() }

    /// Serves until the cell's client session is over or `stop` is called.
    func run() throws {
        let loop = QUICEventLoop(channel: channel)
        while true {
            let now = MonotonicClock.now()
            // Timers, and the next frame a frame-down flow owes (isochronous workload).
            let next = sessions.map { min($0.connection.expiry, $0.workload.nextDue ?? .max) }.min() ?? .max
            // While a report waits for its acknowledgement, look again soon (see `isComplete`).
            let cap: UInt64 = sessions.contains(where: \.reportSent) ? 20_000_000 : 1_000_000_000
            let timeout = next <= now ? 0 : min(next - now, cap)
            let turn = try loop.turn(timeoutNanos: timeout, withSender: true) { datagram, from, length, now in
                if let from { dispatch(datagram, from: from, length: length, now: now) }
                return true
            }
            if turn == .woken { return }
            switch flushAll(now: MonotonicClock.now()) {
            case nil: continue
            case .served: return
            case .failed(let failure): throw TransportError("QUIC server: \(failure)")
            }
        }
    }

    /// How the cell's session ended.
    enum Outcome {
        /// The report went out and the client has it (or closed cleanly after it).
        case served
        case failed(QUICFailure)
    }

    /// Timers and writes for every connection; removes finished ones. Returns the
    /// outcome once the cell's session is over; other connections never end the loop.
    private func flushAll(now: UInt64) -> Outcome? {
        var outcome: Outcome?
        for s in sessions {
            let c = s.connection
            if !c.isFinished { s.workload.tick(now: now) }
            c.service(now: now, transmit: transmit)
            let isCellClient = claim.holder === s
            if isCellClient, s.isComplete(now: now) {
                outcome = .served
                c.close(.application(ApplicationError.noError, ""), transmit: transmit)
            }
            if c.isFinished {
                c.flushClose(transmit)
                if isCellClient, outcome == nil, s.awaitsResume {
                    // `reconnect`: the client lost this connection too (idle timeout) and
                    // comes back with RESUME; the counts stay in the claim's receipt.
                    logger.debug("QUIC server: the cell's client connection ended before the report (\(c.failure.map { "\($0)" } ?? "closed")); waiting for its RESUME")
                    s.release()
                } else if isCellClient, outcome == nil {
                    outcome = s.isComplete(now: now) || c.peerClosedCleanly && s.reportSent
                        ? .served : .failed(c.failure ?? .protocolViolation("the client closed the connection before the report"))
                } else if !isCellClient {
                    logger.debug("QUIC server: a connection from \(c.peerDescription) that is not this cell's client ended\(c.failure.map { ": \($0)" } ?? "")")
                }
                remove(s)
            }
        }
        return outcome
    }

    private lazy var transmit: QUICConnection.Transmit = { [channel] bytes, segment, path in
        channel.send(bytes, segment: segment, to: path.pointee.remote.addr, length: path.pointee.remote.addrlen)
    }

    private func dispatch(_ datagram: UnsafeRawBufferPointer, from: UnsafeRawPointer, length: socklen_t, now: UInt64) {
        guard datagram.count > 0, let bytes = datagram.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var vc = ngtcp2_version_cid()
        // Anything that does not even parse as a QUIC header is dropped here.
        guard ngtcp2_pkt_decode_version_cid(&vc, bytes, datagram.count, QUICConnection.cidLength) == 0, let dcidPtr = vc.dcid else { return }
        let dcid = Array(UnsafeBufferPointer(start: dcidPtr, count: vc.dcidlen))
        local.withPointer { l, ll in
            ngtcp2_path_storage_init(readPath, l, ll, from.assumingMemoryBound(to: sockaddr.self), length, nil)
        }
        if let s = routes[dcid] {
            s.connection.read(datagram, path: UnsafePointer(readPath.pathPointer), now: now)
            return
        }
        // A new connection needs a well-formed client Initial (ngtcp2_accept) and room.
        var hd = ngtcp2_pkt_hd()
        guard ngtcp2_accept(&hd, bytes, datagram.count) == 0 else { return }
        if sessions.count >= Self.maxConnections {
            // Full: make room by dropping the oldest connection still in its handshake,
            // else the oldest that has not proved to be the cell's client, so neither a
            // flood of Initials nor of complete stray handshakes can lock the real client out.
            guard let victim = sessions.first(where: { !$0.connection.isHandshakeComplete })
                    ?? sessions.first(where: { claim.holder !== $0 && claim.probeFlow !== $0 })
                    ?? sessions.first(where: { claim.holder !== $0 }) else {
                logger.debug("QUIC server: dropping an Initial, \(Self.maxConnections) connections already open")
                return
            }
            remove(victim)
        }
        let peer = SockAddrBox(raw: from, length: length)
        let peerText = peer.withPointer { p, _ in SocketAddress(storage: UnsafeRawPointer(p).load(as: sockaddr_storage.self)) }?.description ?? "client"
        do {
            let tls = try QUICConnection.makeTLS(server: true, credentials: credentials, alpn: config.alpn, verifyName: nil,
                                                 requireClientCertificate: config.mutualTLS, resumption: resumption)
            let ctx = QUICFailure.TLSContext(isServer: true, caFile: config.caFile, verifyName: nil, alpn: config.alpn)
            var settings = config.connection
            // The control stream plus up to 128 bulk streams at once; each closed bulk
            // stream gives the client credit for another (stream_close).
            settings.maxBidiStreams = 129
            settings.maxUniStreams = 0
            let c = try QUICConnection(.server(initial: hd), local: local, remote: peer, tls: tls, settings: settings, tlsContext: ctx, peer: peerText)
            let s = ServerSession(connection: c, token: token, claim: claim, sendsTicket: resumption != nil)
            c.delegate = s
            s.onNewID = { [unowned self, unowned s] cid in self.routes[cid] = s }
            sessions.append(s)
            routes[c.originalDCID] = s
            for cid in c.localCIDs { routes[cid] = s }
            c.read(datagram, path: UnsafePointer(readPath.pathPointer), now: now)
        } catch {
            logger.warning("QUIC server: cannot accept a connection from \(peerText): \(error)")
        }
    }

    private func remove(_ s: ServerSession) {
        if claim.holder === s { claim.holder = nil }
        if claim.probeFlow === s { claim.probeFlow = nil }
        sessions.removeAll { $0 === s }
        routes = routes.filter { $0.value !== s }
    }
}

/// Which of a server's connections is the cell's client: the first to present the
/// cell's token in HELLO. One per server loop, shared by its sessions.
final class CellClaim {
    var holder: ServerSession?
    /// The cell client's second connection, carrying only loaded probes (PROBE_HELLO).
    var probeFlow: ServerSession?
    /// The cell's bulk counts, from its HELLO on (shared by the RESUME connections).
    var receipt: BulkReceipt?
    /// RESUME connections accepted so far (at most `ReconnectPolicy.maxReconnects`).
    var resumes = 0
    /// The cell runs with `reconnect`: a lost client connection is waited for, not the session's end.
    let acceptsResume: Bool

    init(acceptsResume: Bool = false) { self.acceptsResume = acceptsResume }
}

/// A connection that is not the cell's client: closed with application error 3
/// (`ApplicationError.notThisCell`), without ending the server's loop.
struct NotThisCell: Error, CustomStringConvertible {
    var description: String
}

/// One connection's application state on the server (docs/protocol/quic.md).
final class ServerSession: QUICConnectionDelegate {
    let connection: QUICConnection
    private let token: CellToken
    private unowned let claim: CellClaim
    var onNewID: (([UInt8]) -> Void)?
    private var parsers: [Int64: FrameParser] = [:]
    /// This connection's counts until it claims the cell (HELLO: they become the
    /// cell's; RESUME: the cell's take their place).
    private var receipt = BulkReceipt()
    /// Bulk streams of this connection that ended (DONE counts this connection's).
    private var finishedStreams: UInt64 = 0
    /// Body bytes of the message in progress on each bulk stream (`release`).
    private var partial: [Int64: UInt64] = [:]
    /// Lost or superseded by a RESUME connection: nothing it still delivers counts.
    private var released = false
    private var done: DoneBody?
    private(set) var reportSent = false
    private var reportSentAt: UInt64 = 0
    private var reportEnd: UInt64 = 0
    private var controlStream: Int64?

    /// Sends a session ticket once the handshake completed (`resumption`).
    private let sendsTicket: Bool
    /// The request, frame and pull streams of the workloads beyond the upload.
    let workload: ServerWorkloadStreams

    init(connection: QUICConnection, token: CellToken, claim: CellClaim, sendsTicket: Bool = false) {
        self.connection = connection
        workload = ServerWorkloadStreams(connection: connection)
        self.sendsTicket = sendsTicket
        self.token = token
        self.claim = claim
    }

    /// The session is over once the report has gone out and the client acknowledged
    /// it, or (its acknowledgement and CONNECTION_CLOSE both lost, say on a lossy
    /// link) the client stayed silent for three probe timeouts since then: a client
    /// that still had the connection would have answered our retransmitted report.
    func isComplete(now: UInt64) -> Bool {
        guard reportSent, !workload.isSending, let id = controlStream else { return false }
        if connection.ackedOffset(of: id).map({ $0 >= reportEnd }) ?? true { return true }
        let s = connection.stats
        let pto = s.smoothed_rtt + max(4 * s.rttvar, 1_000_000) + 25_000_000
        let linger = min(max(3 * pto, 100_000_000), 3_000_000_000)
        return now > max(reportSentAt, connection.lastReadAt) + linger
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
        try parser.feed(data, onData: { n, complete in
            guard bulk else { throw FramingError(description: "DATA frame on the control stream") }
            if workload.noteBulkData(on: stream) {
                countBulk(n, complete: complete, on: stream)
            } else {
                try workload.data(n, complete: complete, on: stream)
            }
        }, onControl: { frame in
            guard bulk else { try control(frame, on: stream); return }
            try workload.control(frame, on: stream)
        })
        if fin {
            guard parser.atFrameBoundary else { throw FramingError(description: "stream \(stream) ended inside a frame") }
            if workload.handles(stream) {
                try workload.ended(stream)
            } else if bulk {
                finishedStreams += 1
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
        guard !released else { return }
        receipt.count(n, complete: complete, at: MonotonicClock.now())
        if complete { partial[stream] = nil } else { partial[stream, default: 0] += UInt64(n) }
    }

    /// With `reconnect`, the cell's client connection ended before its REPORT: the
    /// client comes back with RESUME rather than the session failing.
    var awaitsResume: Bool {
        guard claim.acceptsResume, !reportSent, !released, claim.resumes < ReconnectPolicy.maxReconnects else { return false }
        // The client closing with an error is its giving up, not a lost link.
        if case .peerClosed? = connection.failure { return false }
        return !connection.peerClosedCleanly
    }

    /// This connection no longer carries the cell's session (lost, or a RESUME came on
    /// another): the bytes of its messages cut short leave the count, and whatever it
    /// still delivers is ignored, so the resent messages count once.
    func release() {
        guard !released else { return }
        released = true
        receipt.discard(partialBytes: partial.values.reduce(0, +))
        partial = [:]
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
            claim.receipt = receipt
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
            receipt = shared
            controlStream = stream
            connection.sender(stream).append(copying: FrameEncoder.encode(.resumed(ResumedBody(messages: shared.messages, bytes: shared.bytes))))
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
            connection.sender(stream).append(copying: FrameEncoder.encode(.pong(seq)))
        case .done(let d):
            try requireHello()
            guard claim.probeFlow !== self else { throw FramingError(description: "DONE on the probe flow") }
            guard done == nil else { throw FramingError(description: "second DONE frame") }
            done = d
        case .pong, .report, .series, .resumed, .frameArrivals, .flowReport:
            throw FramingError(description: "client sent a server-only frame (\(frame))")
        case .request, .frame, .framePull, .pull, .flow:
            throw FramingError(description: "\(frame) on the control stream; it opens a workload stream of its own")
        }
    }

    /// Nothing but HELLO may come first: a stray that speaks our protocol stops here.
    private func requireHello() throws {
        guard controlStream != nil else { throw NotThisCell(description: "the first control frame was not HELLO (not this cell's client)") }
    }

    /// The report goes out once DONE arrived and every bulk stream it announced has ended,
    /// right after the bulk series (SERIES), in the same packet when it fits.
    private func maybeReport() {
        guard !reportSent, !released, let d = done, finishedStreams >= d.streams, let control = controlStream else { return }
        reportSent = true
        reportSentAt = MonotonicClock.now()
        let r = receipt
        let span = r.firstByteAt.map { r.lastByteAt - $0 } ?? 0
        // Only a client that asked gets the 40-byte REPORT; an older one could not read it.
        let messageSpan = d.wantsSpan ? r.firstMessageAt.map { r.lastMessageAt - $0 } ?? 0 : nil
        let sender = connection.sender(control)
        sender.append(copying: FrameEncoder.encode(.series(r.series.series)))
        sender.append(copying: FrameEncoder.encode(.report(ReportBody(messages: r.messages, bytes: r.bytes, streams: finishedStreams,
                                                                      receiveNanos: span, spanNanos: messageSpan))))
        reportEnd = sender.queuedEnd
    }
}
