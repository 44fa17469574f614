import CNgtcp2
import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What a connection's owner (the client workload or the server session) hears from it.
protocol QUICConnectionDelegate: AnyObject {
    func handshakeCompleted(_ connection: QUICConnection)
    /// In-order stream bytes. Throwing closes the connection with a protocol violation
    /// (application error 1), or with application error 3 for `NotThisCell`.
    func received(_ connection: QUICConnection, stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws
    func streamClosed(_ connection: QUICConnection, stream: Int64)
    /// The server issued a new connection ID for this connection (packets may carry it).
    func issuedConnectionID(_ connection: QUICConnection, _ cid: [UInt8])
}

extension QUICConnectionDelegate {
    func issuedConnectionID(_ connection: QUICConnection, _ cid: [UInt8]) {}
}

/// One ngtcp2 connection (client or server), owned and freed here, with its TLS
/// session, its network path and the outgoing data of its streams.
///
/// The pieces live in files named for them: C callbacks (`+Callbacks`), the write
/// pass (`+Write`), batching (`PacketBatcher`), stream order (`StreamScheduler`).
/// Not thread-safe: one connection lives on one I/O thread.
final class QUICConnection {
    static let cidLength = 18

    /// Which side this is; a server connection starts from the client's first Initial.
    enum Role {
        case client
        case server(initial: ngtcp2_pkt_hd)
    }

    /// The ngtcp2 connection. Implicitly unwrapped only because ngtcp2 0.12 takes the
    /// callbacks' user pointer (`self`) at creation and has no setter for it later, so
    /// `self` must exist before the connection does; set once in `init`, never nil after.
    private(set) var conn: OpaquePointer!
    let tls: GnuTLSSession
    /// What ngtcp2_crypto_gnutls finds the connection by, through the TLS session's user
    /// pointer (`attachTLS`); on the heap, since GnuTLS keeps its address.
    let connRef: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>
    let isServer: Bool
    let tlsContext: QUICFailure.TLSContext
    let settings: ConnectionSettings
    let peerDescription: String
    /// The owner; weak, since the owner holds the connection.
    weak var delegate: (any QUICConnectionDelegate)?

    /// The path this connection was made on; reads pass it unless the peer moved.
    let path: UnsafeMutablePointer<ngtcp2_path_storage>
    /// Filled by ngtcp2 when it writes a packet: where to send it.
    let writePath: UnsafeMutablePointer<ngtcp2_path_storage>
    /// Where the packets of the batch being gathered go (`writePackets`): a packet
    /// for another path (path validation, a migrated peer) never joins their send.
    let batchPath: UnsafeMutablePointer<ngtcp2_path_storage>
    /// The path a migration is validating (client): reads from the new socket pass it.
    let probePath: UnsafeMutablePointer<ngtcp2_path_storage>
    /// Stream senders and their order (set by the callbacks and the write pass too).
    var scheduler = StreamScheduler()
    let vecs: UnsafeMutableBufferPointer<ngtcp2_vec>
    let packetBuffer: UnsafeMutableRawBufferPointer

    let createdAt: UInt64
    /// Set by the handshake callbacks.
    var handshakeCompletedAt: UInt64?
    var handshakeConfirmedAt: UInt64?
    /// Set once the connection is over (closed by us, by the peer, or by a timer).
    private(set) var failure: QUICFailure?
    private(set) var isClosed = false
    /// True when the peer closed cleanly (NO_ERROR, transport or application).
    private(set) var peerClosedCleanly = false
    /// The error a delegate threw inside an ngtcp2 callback (set by the callbacks).
    var callbackError: (any Error)?
    /// The client's Destination Connection ID of its first Initial (server only: routing key).
    private(set) var originalDCID: [UInt8] = []
    /// Our connection IDs (the callbacks add new ones).
    var localCIDs: [[UInt8]] = []
    /// When the last datagram for this connection arrived.
    private(set) var lastReadAt: UInt64 = 0
    /// When the peer last acknowledged stream data we sent (set by the callbacks): the
    /// application's progress, which a dead path stops (`migrate`).
    var lastStreamAckAt: UInt64 = 0
    /// The last path validation ngtcp2 finished (set by the callbacks): when, and
    /// whether the peer answered on the path.
    var lastPathValidation: (at: UInt64, succeeded: Bool)?
    /// Datagrams sent and received, payload bytes included (the record's overhead figures;
    /// the write pass counts what it sends).
    var datagramsSent = 0, bytesSent = 0
    private(set) var datagramsReceived = 0, bytesReceived = 0
    /// Whether ngtcp2 has an RTT sample yet (latched by the write pass, which starts pacing then).
    var rttSampled = false
    /// A CONNECTION_CLOSE a failure asked for, sent by the next `flushClose`.
    private var pendingClose: CloseReason?

    init(
        _ role: Role, local: SockAddrBox, remote: SockAddrBox, tls: GnuTLSSession, settings: ConnectionSettings,
        tlsContext: QUICFailure.TLSContext, peer: String
    ) throws {
        self.tls = tls
        self.settings = settings
        self.tlsContext = tlsContext
        peerDescription = peer
        // Path storage points into itself, so it lives on the heap and never moves.
        path = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(path)
        writePath = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(writePath)
        batchPath = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(batchPath)
        probePath = .allocate(capacity: 1)
        ngtcp2_path_storage_zero(probePath)
        vecs = .allocate(capacity: 32)
        packetBuffer = .allocate(byteCount: 65536, alignment: 16)
        connRef = .allocate(capacity: 1)
        createdAt = MonotonicClock.now()
        if case .server = role { isServer = true } else { isServer = false }
        local.withPointer { l, ll in remote.withPointer { r, rl in ngtcp2_path_storage_init(path, l, ll, r, rl, nil) } }

        var scid = try Self.randomCID()
        var callbacks = ngtcp2_callbacks()
        var s = makeSettings()
        var params = makeParams()
        var c: OpaquePointer?
        let rv: Int32
        let user = Unmanaged.passUnretained(self).toOpaque()
        switch role {
        case .client:
            var dcid = try Self.randomCID()
            pb_ngtcp2_client_crypto_callbacks(&callbacks)
            Self.installCallbacks(&callbacks)
            rv = pb_ngtcp2_conn_client_new(&c, &dcid, &scid, path.pathPointer, UInt32(NGTCP2_PROTO_VER_V1), &callbacks, &s, &params, user)
        case .server(let initial):
            var hd = initial
            pb_ngtcp2_server_crypto_callbacks(&callbacks)
            Self.installCallbacks(&callbacks)
            params.original_dcid = hd.dcid
            originalDCID = Self.bytes(of: hd.dcid)
            rv = pb_ngtcp2_conn_server_new(&c, &hd.scid, &scid, path.pathPointer, hd.version, &callbacks, &s, &params, user)
        }
        guard rv == 0, let c else {
            throw QUICFailure.library(isServer ? "creating the QUIC server connection" : "creating the QUIC client connection", code: rv)
        }
        conn = c
        localCIDs = [Self.bytes(of: scid)]
        attachTLS()
    }

    deinit {
        if let conn { ngtcp2_conn_del(conn) }
        path.deallocate()
        writePath.deallocate()
        batchPath.deallocate()
        probePath.deallocate()
        vecs.deallocate()
        packetBuffer.deallocate()
        connRef.deallocate()
    }

    private func makeSettings() -> ngtcp2_settings {
        var s = ngtcp2_settings()
        pb_ngtcp2_settings_default(&s)
        s.initial_ts = createdAt
        s.cc_algo = settings.congestionControl.ngtcp2
        s.max_window = settings.maxWindow
        s.max_stream_window = settings.maxStreamWindow
        s.handshake_timeout = settings.handshakeTimeoutNanos
        if let m = settings.maxUDPPayload {
            // The link's MTU is known: use exactly what fits, from the first packet
            // after the handshake, instead of probing for it (and without the
            // 1200-byte ceiling ngtcp2 otherwise keeps until PMTUD raises it).
            s.max_tx_udp_payload_size = m
            s.no_tx_udp_payload_size_shaping = 1
            s.no_pmtud = 1
        }
        if settings.debugLog { pb_ngtcp2_settings_enable_log(&s) }
        return s
    }

    private func makeParams() -> ngtcp2_transport_params {
        var p = ngtcp2_transport_params()
        pb_ngtcp2_transport_params_default(&p)
        // Start with the full window: every byte is consumed on arrival (nothing is
        // buffered by the application), so the window only bounds ngtcp2's reordering buffer.
        p.initial_max_stream_data_bidi_local = settings.maxStreamWindow
        p.initial_max_stream_data_bidi_remote = settings.maxStreamWindow
        p.initial_max_stream_data_uni = settings.maxStreamWindow
        p.initial_max_data = settings.maxWindow
        p.initial_max_streams_bidi = settings.maxBidiStreams
        p.initial_max_streams_uni = settings.maxUniStreams
        p.max_idle_timeout = settings.idleTimeoutNanos
        p.active_connection_id_limit = 4
        return p
    }

    static func randomCID() throws(SystemError) -> ngtcp2_cid {
        var cid = ngtcp2_cid()
        cid.datalen = cidLength
        try withUnsafeMutableBytes(of: &cid.data) { b in
            Result { () throws(SystemError) in try SecureRandom.fill(UnsafeMutableRawBufferPointer(rebasing: b[..<cidLength])) }
        }.get()
        return cid
    }

    static func bytes(of cid: ngtcp2_cid) -> [UInt8] {
        withUnsafeBytes(of: cid.data) { Array($0.prefix(cid.datalen)) }
    }

    // MARK: Streams

    var isHandshakeComplete: Bool { handshakeCompletedAt != nil }

    /// A new bidirectional stream, or nil while the peer's stream limit is reached.
    func openBidiStream() -> Int64? {
        var id: Int64 = -1
        return ngtcp2_conn_open_bidi_stream(conn, &id, nil) == 0 ? id : nil
    }

    /// The sender of `stream`, created on first use and scheduled for writing.
    func sender(_ stream: Int64) -> StreamSender { scheduler.sender(stream) }

    /// How much of `stream` the peer acknowledged; nil once the stream is closed.
    func ackedOffset(of stream: Int64) -> UInt64? { scheduler.existing(stream)?.ackedOffset }

    /// Streams whose data is not yet all handed to ngtcp2.
    var activeStreamCount: Int { scheduler.activeCount }

    // MARK: Reading

    /// Feeds one datagram from `remote` (nil = the connection's own path).
    /// Errors end the connection; see `failure`.
    func read(_ datagram: UnsafeRawBufferPointer, path readPath: UnsafePointer<ngtcp2_path>? = nil, now: UInt64) {
        guard !isClosed, let base = datagram.baseAddress else { return }
        lastReadAt = now
        datagramsReceived += 1
        bytesReceived += datagram.count
        let rv = pb_ngtcp2_conn_read_pkt(
            conn, readPath ?? UnsafePointer(path.pathPointer),
            base.assumingMemoryBound(to: UInt8.self), datagram.count, now)
        guard rv != 0 else { return }
        switch rv {
        case NGTCP2_ERR_DRAINING:
            noteRemoteClose()
        case NGTCP2_ERR_CRYPTO:
            let alert = ngtcp2_conn_get_tls_alert(conn)
            fail(.localTLS(alert: alert, verifyStatus: tls.verifyStatus, context: tlsContext), closeWith: .tlsAlert(alert))
        case NGTCP2_ERR_CALLBACK_FAILURE where callbackError is NotThisCell:
            let what = callbackError.map { "\($0)" } ?? "not this cell's client"
            fail(.notThisCell(what), closeWith: .application(ApplicationError.notThisCell, what))
        case NGTCP2_ERR_CALLBACK_FAILURE where callbackError != nil:
            let what = callbackError.map { "\($0)" } ?? "callback failed"
            fail(.protocolViolation(what), closeWith: .application(ApplicationError.protocolViolation, what))
        case NGTCP2_ERR_DROP_CONN, NGTCP2_ERR_RETRY:
            fail(.library("the connection was dropped", code: rv), closeWith: nil)
        default:
            fail(.library("reading a packet from \(peerDescription)", code: rv), closeWith: .liberr(rv))
        }
    }

    private func noteRemoteClose() {
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_conn_get_connection_close_error(conn, &ccerr)
        let application = ccerr.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION
        isClosed = true
        if ccerr.error_code == 0 {
            peerClosedCleanly = true
            return
        }
        let reason = ccerr.reason.map { String(decoding: UnsafeBufferPointer(start: $0, count: ccerr.reasonlen), as: UTF8.self) } ?? ""
        failure = .peerClosed(code: ccerr.error_code, application: application, reason: reason, context: tlsContext)
    }

    // MARK: Timers

    /// When `handleExpiry` must run next (monotonic ns; UInt64.max = never).
    var expiry: UInt64 { isClosed ? .max : ngtcp2_conn_get_expiry(conn) }

    func handleExpiry(now: UInt64) {
        guard !isClosed, now >= ngtcp2_conn_get_expiry(conn) else { return }
        let rv = ngtcp2_conn_handle_expiry(conn, now)
        switch rv {
        case 0: return
        case NGTCP2_ERR_HANDSHAKE_TIMEOUT:
            fail(.handshakeTimeout(peer: peerDescription, seconds: Double(settings.handshakeTimeoutNanos) / 1e9), closeWith: nil)
        case NGTCP2_ERR_IDLE_CLOSE:
            fail(.idleTimeout(peer: peerDescription, seconds: Double(settings.idleTimeoutNanos) / 1e9), closeWith: nil)
        default:
            fail(.library("handling a QUIC timer", code: rv), closeWith: .liberr(rv))
        }
    }

    /// One service pass, what every event loop turn does for a connection: due
    /// timers first, then everything ngtcp2 has to send.
    func service(now: UInt64, transmit: @escaping Transmit) {
        handleExpiry(now: now)
        writePackets(now: now, transmit: transmit)
    }

    // MARK: Closing

    enum CloseReason {
        case application(UInt64, String)
        case tlsAlert(UInt8)
        case liberr(Int32)
    }

    /// Closes the connection: sends CONNECTION_CLOSE (when `transmit` is given) and stops.
    func close(_ reason: CloseReason, transmit: Transmit?) {
        guard !isClosed else { return }
        isClosed = true
        guard let transmit, let out = packetBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_default(&ccerr)
        var reasonBytes: [UInt8] = []
        switch reason {
        case .application(let code, let text):
            reasonBytes = Array(text.utf8.prefix(256))
            ngtcp2_connection_close_error_set_application_error(&ccerr, code, nil, 0)
        case .tlsAlert(let alert):
            ngtcp2_connection_close_error_set_transport_error_tls_alert(&ccerr, alert, nil, 0)
        case .liberr(let rv):
            ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, rv, nil, 0)
        }
        let n = reasonBytes.withUnsafeBufferPointer { rb -> ngtcp2_ssize in
            ccerr.reason = UnsafeMutablePointer(mutating: rb.baseAddress)
            ccerr.reasonlen = rb.count
            return pb_ngtcp2_conn_write_connection_close(conn, writePath.pathPointer, out, packetBuffer.count, &ccerr, MonotonicClock.now())
        }
        if n > 0 { _ = transmit(UnsafeRawBufferPointer(start: out, count: n), 0, UnsafePointer(writePath.pathPointer)) }
    }

    /// Records `failure` and closes; the CONNECTION_CLOSE goes out on the next
    /// `flushClose` (reads and timers have no transmit at hand).
    func fail(_ f: QUICFailure, closeWith reason: CloseReason?, transmit: Transmit? = nil) {
        guard failure == nil, !isClosed else { return }
        failure = f
        if let reason {
            pendingClose = reason
            if let transmit { flushClose(transmit) }
        } else {
            isClosed = true
        }
    }

    /// Sends the CONNECTION_CLOSE a failure asked for, if any.
    func flushClose(_ transmit: @escaping Transmit) {
        guard let r = pendingClose else { return }
        pendingClose = nil
        close(r, transmit: transmit)
    }

    /// True once the connection is over or has a close to send.
    var isFinished: Bool { isClosed || pendingClose != nil }

    /// ngtcp2's connection statistics now.
    var stats: ngtcp2_conn_stat {
        var s = ngtcp2_conn_stat()
        pb_ngtcp2_conn_get_conn_stat(conn, &s)
        return s
    }
}
