#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import PeerBenchCore
import Logging

/// The server side of one cell: a UDP socket and a single-threaded event loop that
/// accepts QUIC connections, answers probes, counts bulk messages and reports them.
///
/// It serves one client session: the loop ends when a connection that completed its
/// handshake is over (normally: the client has acknowledged the report). Connections
/// that never complete a handshake (garbage, replayed Initials, a client that
/// rejected our certificate) are reaped by the handshake timeout and do not end it.
final class QUICServerLoop: @unchecked Sendable {
    /// At most this many connections at once, so a flood of Initials cannot make the
    /// server hold unbounded state (each connection is bounded by its flow-control windows).
    static let maxConnections = 8
    /// Datagrams read before the loop turns to timers and writes. Small, so ACKs
    /// leave soon: ngtcp2 0.12's CUBIC caps the window near 2.89 x rate x min RTT
    /// and paces at cwnd / smoothed RTT, so every microsecond a received packet
    /// waits for its ACK costs goodput (16 gave 400-515 MB/s on loopback, 64 gave
    /// 140-300 MB/s, 8 gave 425-460 MB/s).
    static let readBatch = 16

    let channel: UDPChannel
    let address: SocketAddress
    private let local: SockAddrBox
    private let config: QUICConfiguration
    private let credentials: TLSCredentials
    private var sessions: [ServerSession] = []
    private var routes: [[UInt8]: ServerSession] = [:]
    private let readPath: UnsafeMutablePointer<ngtcp2_path_storage>
    private let logger: Logger

    /// Binds on `host` port 0. Call inside the server endpoint (its network namespace).
    init(host: String, config: QUICConfiguration, logger: Logger) throws {
        let bindAddress = SocketAddress(host: host, port: 0)
        channel = try UDPChannel(family: bindAddress.family)
        try channel.socket.bind(bindAddress)
        address = try channel.socket.localAddress()
        local = try SockAddrBox(address)
        self.config = config
        self.logger = logger
        credentials = try TLSCredentials(caFile: config.mutualTLS ? config.caFile : nil, certFile: config.certFile, keyFile: config.keyFile)
        readPath = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(readPath)
    }

    deinit { readPath.deallocate() }

    /// Ends `run` soon. Safe from any thread.
    func stop() { channel.wake() }

    /// Serves until one client session is over or `stop` is called.
    func run() throws {
        var from = sockaddr_storage()
        var fromLength = socklen_t(0)
        while true {
            var now = MonotonicClock.now()
            let next = sessions.map(\.connection.expiry).min() ?? .max
            // While a report waits for its acknowledgement, look again soon (see `isComplete`).
            let cap: UInt64 = sessions.contains(where: \.reportSent) ? 20_000_000 : 1_000_000_000
            let timeout = next <= now ? 0 : min(next - now, cap)
            let (readable, woken) = try channel.wait(timeoutNanos: channel.isStalled ? min(timeout, 1_000_000) : timeout)
            if woken { return }
            channel.flushStalled()
            if readable {
                // A bounded batch (`readBatch` QUIC datagrams, however the kernel coalesced
                // them), then timers and writes, so ACKs go out promptly.
                var datagrams = 0
                while datagrams < Self.readBatch {
                    guard let (n, segment) = try channel.receive(from: &from, fromLength: &fromLength) else { break }
                    datagrams += segment > 0 ? (n + segment - 1) / segment : 1
                    now = MonotonicClock.now()
                    // Coalesced datagrams (UDP_GRO) are split back into QUIC datagrams.
                    let step = segment > 0 ? segment : max(n, 1)
                    var offset = 0
                    while offset < n {
                        let len = min(step, n - offset)
                        withUnsafePointer(to: &from) { p in
                            dispatch(UnsafeRawBufferPointer(start: channel.receiveBuffer.baseAddress! + offset, count: len),
                                     from: UnsafeRawPointer(p), length: fromLength, now: now)
                        }
                        offset += len
                    }
                }
            }
            now = MonotonicClock.now()
            if let outcome = flushAll(now: now) {
                if let failure = outcome { throw TransportError("QUIC server: \(failure)") }
                return
            }
        }
    }

    /// Timers and writes for every connection; removes finished ones. Returns
    /// `.some(nil)` when the client session is over, `.some(error)` when it failed.
    @discardableResult
    private func flushAll(now: UInt64) -> QUICFailure?? {
        var outcome: QUICFailure?? = nil
        for s in sessions {
            let c = s.connection
            c.handleExpiry(now: now)
            c.writePackets(now: now, transmit: transmit)
            if s.isComplete(now: now) {
                outcome = .some(nil)
                c.close(.application(ApplicationError.noError, ""), transmit: transmit)
            }
            if c.isFinished {
                c.flushClose(transmit)
                if outcome == nil, c.isHandshakeComplete {
                    outcome = .some(s.isComplete(now: now) || c.peerClosedCleanly && s.reportSent ? nil : (c.failure ?? .protocolViolation("the client closed the connection before the report")))
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
        guard datagram.count > 0 else { return }
        let bytes = datagram.baseAddress!.assumingMemoryBound(to: UInt8.self)
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
            // so a flood of Initials cannot lock the real client out.
            guard let victim = sessions.first(where: { !$0.connection.isHandshakeComplete }) else {
                logger.debug("QUIC server: dropping an Initial, \(Self.maxConnections) connections already open")
                return
            }
            remove(victim)
        }
        let peer = SockAddrBox(raw: from, length: length)
        let peerText = peer.withPointer { p, _ in SocketAddress(storage: UnsafeRawPointer(p).load(as: sockaddr_storage.self)) }?.description ?? "client"
        do {
            let tls = try TLSSession(server: true, credentials: credentials, alpn: config.alpn, verifyName: nil, requireClientCertificate: config.mutualTLS)
            let ctx = QUICFailure.TLSContext(isServer: true, caFile: config.caFile, verifyName: nil, alpn: config.alpn)
            var settings = config.connection
            // The control stream plus up to 128 bulk streams at once; each closed bulk
            // stream gives the client credit for another (stream_close).
            settings.maxBidiStreams = 129
            settings.maxUniStreams = 0
            let c = try QUICConnection(serverFor: hd, local: local, remote: peer, tls: tls, settings: settings, tlsContext: ctx, peer: peerText)
            let s = ServerSession(connection: c)
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
        sessions.removeAll { $0 === s }
        routes = routes.filter { $0.value !== s }
    }
}

/// One connection's application state on the server (docs/protocol/quic.md).
final class ServerSession: QUICConnectionDelegate {
    let connection: QUICConnection
    var onNewID: (([UInt8]) -> Void)?
    private var parsers: [Int64: FrameParser] = [:]
    private var messages: UInt64 = 0
    private var bytes: UInt64 = 0
    private var finishedStreams: UInt64 = 0
    private var firstByteAt: UInt64?
    private var lastByteAt: UInt64 = 0
    private var done: DoneBody?
    private(set) var reportSent = false
    private var reportSentAt: UInt64 = 0
    private var reportEnd: UInt64 = 0
    private var controlStream: Int64?

    init(connection: QUICConnection) { self.connection = connection }

    /// The session is over once the report has gone out and the client acknowledged
    /// it, or (its acknowledgement and CONNECTION_CLOSE both lost, say on a lossy
    /// link) the client stayed silent for three probe timeouts since then: a client
    /// that still had the connection would have answered our retransmitted report.
    func isComplete(now: UInt64) -> Bool {
        guard reportSent, let id = controlStream else { return false }
        if connection.ackedOffset(of: id).map({ $0 >= reportEnd }) ?? true { return true }
        let s = connection.stats
        let pto = s.smoothed_rtt + max(4 * s.rttvar, 1_000_000) + 25_000_000
        let linger = min(max(3 * pto, 100_000_000), 3_000_000_000)
        return now > max(reportSentAt, connection.lastReadAt) + linger
    }

    func handshakeCompleted(_ connection: QUICConnection) {}
    func streamClosed(_ connection: QUICConnection, stream: Int64) { parsers[stream] = nil }
    func issuedConnectionID(_ connection: QUICConnection, _ cid: [UInt8]) { onNewID?(cid) }

    func received(_ connection: QUICConnection, stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws {
        guard stream & 0x3 == 0 else { throw FramingError(description: "stream \(stream) is not a client-initiated bidirectional stream") }
        // Stream 0 (the client's first bidirectional stream) is the control stream; the others carry bulk data.
        let bulk = stream != 0
        if !bulk { controlStream = stream }
        var parser = parsers[stream] ?? FrameParser()
        try parser.feed(data, onData: { n, complete in
            guard bulk else { throw FramingError(description: "DATA frame on the control stream") }
            let now = MonotonicClock.now()
            if firstByteAt == nil { firstByteAt = now }
            lastByteAt = now
            bytes += UInt64(n)
            if complete { messages += 1 }
        }, onControl: { frame in
            guard !bulk else { throw FramingError(description: "control frame on bulk stream \(stream)") }
            switch frame {
            case .ping(let seq):
                connection.sender(stream).append(copying: FrameEncoder.encode(.pong(seq)))
            case .done(let d):
                guard done == nil else { throw FramingError(description: "second DONE frame") }
                done = d
            case .pong, .report:
                throw FramingError(description: "client sent a server-only frame (\(frame))")
            }
        })
        if fin {
            guard parser.atFrameBoundary else { throw FramingError(description: "stream \(stream) ended inside a frame") }
            if bulk {
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

    /// The report goes out once DONE arrived and every bulk stream it announced has ended.
    private func maybeReport() {
        guard !reportSent, let d = done, finishedStreams >= d.streams, let control = controlStream else { return }
        reportSent = true
        reportSentAt = MonotonicClock.now()
        let span = firstByteAt.map { lastByteAt - $0 } ?? 0
        let sender = connection.sender(control)
        sender.append(copying: FrameEncoder.encode(.report(ReportBody(messages: messages, bytes: bytes, streams: finishedStreams, receiveNanos: span))))
        reportEnd = sender.queuedEnd
    }
}
