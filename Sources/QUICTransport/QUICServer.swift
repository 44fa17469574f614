import CNgtcp2
import GnuTLSSupport
import Logging
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

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
    /// The receiving app's time per message (`CellContext.appLoop`), for every session.
    private let appLoop: AppLoop

    /// Binds on `server` (`Endpoint.bindServer`). Call inside the server endpoint (its network namespace).
    init(
        server: Endpoint, config: QUICConfiguration, token: CellToken, logger: Logger, serviceClass: ServiceClass,
        appLoop: AppLoop = .none
    ) throws {
        self.appLoop = appLoop
        channel = try UDPChannel(family: SocketAddress(host: server.address, port: 0).family, serviceClass: serviceClass)
        address = try server.bindServer(channel.socket)
        local = try SockAddrBox(address)
        self.config = config
        self.token = token
        self.logger = logger
        claim = CellClaim(acceptsResume: config.reconnect != nil)
        credentials = try QUICConnection.tlsCredentials(
            caFile: config.mutualTLS ? config.caFile : nil, certFile: config.certFile, keyFile: config.keyFile)
        resumption =
            config.resumption
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
            let next = sessions.map { min($0.connection.expiry, $0.workload.nextDue ?? .max, $0.nextPongDue ?? .max) }.min() ?? .max
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
            if !c.isFinished {
                s.workload.tick(now: now)
                s.answerDuePongs(now: now)
            }
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
                    logger.debug(
                        "QUIC server: the cell's client connection ended before the report (\(c.failure.map { "\($0)" } ?? "closed")); waiting for its RESUME"
                    )
                    s.release()
                } else if isCellClient, outcome == nil {
                    outcome =
                        s.isComplete(now: now) || c.peerClosedCleanly && s.reportSent
                        ? .served : .failed(c.failure ?? .protocolViolation("the client closed the connection before the report"))
                } else if !isCellClient {
                    logger.debug(
                        "QUIC server: a connection from \(c.peerDescription) that is not this cell's client ended\(c.failure.map { ": \($0)" } ?? "")"
                    )
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
            guard
                let victim = sessions.first(where: { !$0.connection.isHandshakeComplete })
                    ?? sessions.first(where: { claim.holder !== $0 && claim.probeFlow !== $0 })
                    ?? sessions.first(where: { claim.holder !== $0 })
            else {
                logger.debug("QUIC server: dropping an Initial, \(Self.maxConnections) connections already open")
                return
            }
            remove(victim)
        }
        let peer = SockAddrBox(raw: from, length: length)
        let peerText =
            peer.withPointer { p, _ in SocketAddress(storage: UnsafeRawPointer(p).load(as: sockaddr_storage.self)) }?.description ?? "client"
        do {
            let tls = try QUICConnection.makeTLS(
                server: true, credentials: credentials, alpn: config.alpn, verifyName: nil,
                requireClientCertificate: config.mutualTLS, resumption: resumption)
            let ctx = QUICFailure.TLSContext(isServer: true, caFile: config.caFile, verifyName: nil, alpn: config.alpn)
            var settings = config.connection
            // The control stream plus up to 128 bulk streams at once; each closed bulk
            // stream gives the client credit for another (stream_close).
            settings.maxBidiStreams = 129
            settings.maxUniStreams = 0
            let c = try QUICConnection(
                .server(initial: hd), local: local, remote: peer, tls: tls, settings: settings, tlsContext: ctx, peer: peerText)
            let s = ServerSession(connection: c, token: token, claim: claim, sendsTicket: resumption != nil, appLoop: appLoop)
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
