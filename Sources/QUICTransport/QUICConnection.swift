#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import PeerBenchCore

/// What a connection's owner (the client workload or the server session) hears from it.
protocol QUICConnectionDelegate: AnyObject {
    func handshakeCompleted(_ connection: QUICConnection)
    /// In-order stream bytes. Throwing closes the connection with a protocol violation.
    func received(_ connection: QUICConnection, stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws
    func streamClosed(_ connection: QUICConnection, stream: Int64)
    /// The server issued a new connection ID for this connection (packets may carry it).
    func issuedConnectionID(_ connection: QUICConnection, _ cid: [UInt8])
}

extension QUICConnectionDelegate {
    func issuedConnectionID(_ connection: QUICConnection, _ cid: [UInt8]) {}
}

/// Transport settings of one connection, from the plugin's options.
struct ConnectionSettings: Sendable {
    var congestionControl: CongestionControl = .cubic
    var maxStreamWindow: UInt64 = 16 << 20
    var maxWindow: UInt64 = 24 << 20
    var handshakeTimeoutNanos: UInt64 = 5_000_000_000
    var idleTimeoutNanos: UInt64 = 30_000_000_000
    /// Largest UDP payload we send; nil = ngtcp2's default with path MTU discovery.
    var maxUDPPayload: Int?
    /// Streams the peer may open at once (the server allows the control stream and the bulk streams).
    var maxUniStreams: UInt64 = 0
    var maxBidiStreams: UInt64 = 0
    /// ngtcp2's own debug log on stderr.
    var debugLog = false
}

/// One ngtcp2 connection (client or server), owned and freed here, with its TLS
/// session, its network path and the outgoing data of its streams.
///
/// Not thread-safe: one connection lives on one I/O thread.
final class QUICConnection {
    static let cidLength = 18

    private(set) var conn: OpaquePointer!
    let tls: TLSSession
    let isServer: Bool
    let tlsContext: QUICFailure.TLSContext
    let settings: ConnectionSettings
    let peerDescription: String
    unowned(unsafe) var delegate: (any QUICConnectionDelegate)?

    /// The path this connection was made on; reads pass it unless the peer moved.
    let path: UnsafeMutablePointer<ngtcp2_path_storage>
    /// Filled by ngtcp2 when it writes a packet: where to send it.
    private let writePath: UnsafeMutablePointer<ngtcp2_path_storage>
    private var senders: [Int64: StreamSender] = [:]
    private var active: [StreamSender] = []
    private let vecs: UnsafeMutableBufferPointer<ngtcp2_vec>
    let packetBuffer: UnsafeMutableRawBufferPointer

    let createdAt: UInt64
    private(set) var handshakeCompletedAt: UInt64?
    private(set) var handshakeConfirmedAt: UInt64?
    /// Set once the connection is over (closed by us, by the peer, or by a timer).
    private(set) var failure: QUICFailure?
    private(set) var isClosed = false
    /// True when the peer closed cleanly (NO_ERROR, transport or application).
    private(set) var peerClosedCleanly = false
    private var callbackError: (any Error)?
    /// The client's Destination Connection ID of its first Initial (server only: routing key).
    private(set) var originalDCID: [UInt8] = []
    private(set) var localCIDs: [[UInt8]] = []
    /// Datagrams sent and received, payload bytes included (the record's overhead figures).
    /// When the last datagram for this connection arrived.
    private(set) var lastReadAt: UInt64 = 0
    private(set) var datagramsSent = 0, datagramsReceived = 0
    private(set) var bytesSent = 0, bytesReceived = 0

    /// A client connection to `remote` from `local`.
    init(clientFrom local: SockAddrBox, to remote: SockAddrBox, tls: TLSSession, settings: ConnectionSettings,
         tlsContext: QUICFailure.TLSContext, peer: String) throws {
        self.tls = tls
        isServer = false
        self.settings = settings
        self.tlsContext = tlsContext
        peerDescription = peer
        (path, writePath, vecs, packetBuffer) = Self.allocateBuffers()
        createdAt = MonotonicClock.now()
        local.withPointer { l, ll in remote.withPointer { r, rl in ngtcp2_path_storage_init(path, l, ll, r, rl, nil) } }

        var dcid = Self.randomCID(), scid = Self.randomCID()
        var callbacks = ngtcp2_callbacks()
        pb_ngtcp2_client_crypto_callbacks(&callbacks)
        Self.installCallbacks(&callbacks)
        var s = makeSettings()
        var params = makeParams()
        var c: OpaquePointer?
        let rv = pb_ngtcp2_conn_client_new(&c, &dcid, &scid, path.pathPointer, UInt32(NGTCP2_PROTO_VER_V1), &callbacks, &s, &params,
                                           Unmanaged.passUnretained(self).toOpaque())
        guard rv == 0, let c else { throw QUICFailure.library("creating the QUIC client connection", code: rv) }
        conn = c
        localCIDs = [Self.bytes(of: scid)]
        tls.attach(c)
    }

    /// A server connection for the client Initial described by `header`.
    init(serverFor header: ngtcp2_pkt_hd, local: SockAddrBox, remote: SockAddrBox, tls: TLSSession, settings: ConnectionSettings,
         tlsContext: QUICFailure.TLSContext, peer: String) throws {
        self.tls = tls
        isServer = true
        self.settings = settings
        self.tlsContext = tlsContext
        peerDescription = peer
        (path, writePath, vecs, packetBuffer) = Self.allocateBuffers()
        createdAt = MonotonicClock.now()
        local.withPointer { l, ll in remote.withPointer { r, rl in ngtcp2_path_storage_init(path, l, ll, r, rl, nil) } }

        var hd = header
        var scid = Self.randomCID()
        var callbacks = ngtcp2_callbacks()
        pb_ngtcp2_server_crypto_callbacks(&callbacks)
        Self.installCallbacks(&callbacks)
        var s = makeSettings()
        var params = makeParams()
        params.original_dcid = hd.dcid
        var c: OpaquePointer?
        let rv = pb_ngtcp2_conn_server_new(&c, &hd.scid, &scid, path.pathPointer, hd.version, &callbacks, &s, &params,
                                           Unmanaged.passUnretained(self).toOpaque())
        guard rv == 0, let c else { throw QUICFailure.library("creating the QUIC server connection", code: rv) }
        conn = c
        originalDCID = Self.bytes(of: hd.dcid)
        localCIDs = [Self.bytes(of: scid)]
        tls.attach(c)
    }

    deinit {
        if let conn { ngtcp2_conn_del(conn) }
        path.deallocate()
        writePath.deallocate()
        vecs.deallocate()
        packetBuffer.deallocate()
    }

    private static func allocateBuffers() -> (UnsafeMutablePointer<ngtcp2_path_storage>, UnsafeMutablePointer<ngtcp2_path_storage>,
                                               UnsafeMutableBufferPointer<ngtcp2_vec>, UnsafeMutableRawBufferPointer) {
        // Path storage points into itself, so it lives on the heap and never moves.
        let p = UnsafeMutablePointer<ngtcp2_path_storage>.allocate(capacity: 1)
        ngtcp2_path_storage_zero(p)
        let w = UnsafeMutablePointer<ngtcp2_path_storage>.allocate(capacity: 1)
        ngtcp2_path_storage_zero(w)
        let v = UnsafeMutableBufferPointer<ngtcp2_vec>.allocate(capacity: 32)
        let b = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        return (p, w, v, b)
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

    static func randomCID() -> ngtcp2_cid {
        var cid = ngtcp2_cid()
        cid.datalen = cidLength
        withUnsafeMutableBytes(of: &cid.data) { _ = gnutls_rnd(GNUTLS_RND_NONCE, $0.baseAddress, cidLength) }
        return cid
    }

    static func bytes(of cid: ngtcp2_cid) -> [UInt8] {
        withUnsafeBytes(of: cid.data) { Array($0.prefix(cid.datalen)) }
    }

    // MARK: Callbacks

    private static func from(_ p: UnsafeMutableRawPointer?) -> QUICConnection {
        Unmanaged<QUICConnection>.fromOpaque(p!).takeUnretainedValue()
    }

    private static func installCallbacks(_ cb: inout ngtcp2_callbacks) {
        cb.recv_stream_data = { _, flags, streamID, _, data, datalen, user, _ in
            QUICConnection.from(user).onStreamData(streamID, data, datalen, fin: flags & UInt32(NGTCP2_STREAM_DATA_FLAG_FIN) != 0)
        }
        cb.acked_stream_data_offset = { _, streamID, offset, datalen, user, _ in
            QUICConnection.from(user).senders[streamID]?.acknowledged(upTo: offset + datalen)
            return 0
        }
        cb.stream_close = { _, _, streamID, _, user, _ in
            let c = QUICConnection.from(user)
            c.senders[streamID] = nil
            if c.isServer, streamID & 0x3 == 0 {
                // Let the client open another bulk stream in place of this one.
                ngtcp2_conn_extend_max_streams_bidi(c.conn, 1)
            }
            c.delegate?.streamClosed(c, stream: streamID)
            return 0
        }
        cb.stream_reset = { _, _, _, _, _, _ in 0 }
        cb.handshake_completed = { _, user in
            let c = QUICConnection.from(user)
            c.handshakeCompletedAt = MonotonicClock.now()
            c.delegate?.handshakeCompleted(c)
            return 0
        }
        cb.handshake_confirmed = { _, user in
            QUICConnection.from(user).handshakeConfirmedAt = MonotonicClock.now()
            return 0
        }
        cb.get_new_connection_id = { _, cid, token, cidlen, user in
            guard let cid, let token else { return NGTCP2_ERR_CALLBACK_FAILURE }
            cid.pointee.datalen = cidlen
            withUnsafeMutableBytes(of: &cid.pointee.data) { _ = gnutls_rnd(GNUTLS_RND_NONCE, $0.baseAddress, cidlen) }
            // Stateless reset is not used; the token only has to be unguessable.
            _ = gnutls_rnd(GNUTLS_RND_NONCE, token, Int(NGTCP2_STATELESS_RESET_TOKENLEN))
            let c = QUICConnection.from(user)
            let bytes = QUICConnection.bytes(of: cid.pointee)
            c.localCIDs.append(bytes)
            c.delegate?.issuedConnectionID(c, bytes)
            return 0
        }
    }

    private func onStreamData(_ streamID: Int64, _ data: UnsafePointer<UInt8>?, _ len: Int, fin: Bool) -> Int32 {
        do {
            try delegate?.received(self, stream: streamID, data: UnsafeRawBufferPointer(start: data, count: len), fin: fin)
        } catch {
            callbackError = error
            return NGTCP2_ERR_CALLBACK_FAILURE
        }
        // The application consumed the bytes: give the credit back at once.
        if len > 0 {
            ngtcp2_conn_extend_max_stream_offset(conn, streamID, UInt64(len))
            ngtcp2_conn_extend_max_offset(conn, UInt64(len))
        }
        return 0
    }

    // MARK: Streams

    var isHandshakeComplete: Bool { handshakeCompletedAt != nil }

    /// A new bidirectional stream, or nil while the peer's stream limit is reached.
    func openBidiStream() -> Int64? {
        var id: Int64 = -1
        return ngtcp2_conn_open_bidi_stream(conn, &id, nil) == 0 ? id : nil
    }


    /// The sender of `stream`, created on first use and scheduled for writing.
    func sender(_ stream: Int64) -> StreamSender {
        if let s = senders[stream] {
            if !active.contains(where: { $0 === s }) { active.append(s) }
            return s
        }
        let s = StreamSender(streamID: stream)
        senders[stream] = s
        active.append(s)
        return s
    }

    /// How much of `stream` the peer acknowledged; nil once the stream is closed.
    func ackedOffset(of stream: Int64) -> UInt64? { senders[stream]?.ackedOffset }

    /// Streams whose data is not yet all handed to ngtcp2.
    var activeStreamCount: Int { active.count }

    // MARK: Reading

    /// Feeds one datagram from `remote` (nil = the connection's own path).
    /// Errors end the connection; see `failure`.
    func read(_ datagram: UnsafeRawBufferPointer, path readPath: UnsafePointer<ngtcp2_path>? = nil, now: UInt64) {
        guard !isClosed else { return }
        lastReadAt = now
        datagramsReceived += 1
        bytesReceived += datagram.count
        let rv = pb_ngtcp2_conn_read_pkt(conn, readPath ?? UnsafePointer(path.pathPointer),
                                         datagram.baseAddress!.assumingMemoryBound(to: UInt8.self), datagram.count, now)
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

    // MARK: Writing

    /// Sends a batch of packets of `segment` bytes each (the last may be shorter;
    /// 0 = one packet) along `path`; returns false when the socket buffer is full
    /// (the channel keeps the batch and retries when writable).
    typealias Transmit = (_ bytes: UnsafeRawBufferPointer, _ segment: Int, _ path: UnsafePointer<ngtcp2_path>) -> Bool

    /// The most packets one send system call carries (UDP_SEGMENT allows 64 and 64 KB).
    static let maxBatch = 40

    /// Writes packets (stream data, ACKs, retransmissions, handshake) until ngtcp2
    /// has nothing more, the congestion window or pacing says stop, or `maxPackets`.
    /// Equal-sized packets are sent in batches with one system call.
    func writePackets(now: UInt64, maxPackets: Int = 64, transmit: @escaping Transmit) {
        if pendingClose != nil { flushClose(transmit) }
        guard !isClosed else { return }
        let maxUDP = ngtcp2_conn_get_max_tx_udp_payload_size(conn)
        let quantum = ngtcp2_conn_get_send_quantum(conn)
        let limit = max(1, min(maxPackets, quantum / max(maxUDP, 1)))
        let base = packetBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let batchLimit = min(Self.maxBatch, packetBuffer.count / maxUDP)
        var pi = ngtcp2_pkt_info()
        var packets = 0
        var batchBytes = 0, batchCount = 0, segment = 0
        defer {
            // ngtcp2 0.12 paces at cwnd / smoothed RTT, and until the first RTT sample
            // the smoothed RTT is the 333 ms default: the client's padded 1200-byte
            // Initial would hold its next packet (TLS Finished, the first probe) back
            // ~20 ms and the server's first flight its HANDSHAKE_DONE, so loopback
            // showed a 21 ms first probe and handshake_confirmed_ms near 25 ms.
            // Pace only once an RTT sample exists, as later ngtcp2 releases do (their
            // pacing interval starts at 0 until the congestion controller sets it).
            if hasRTTSample { ngtcp2_conn_update_pkt_tx_time(conn, now) }
            if active.contains(where: { !$0.hasPending }) { active.removeAll { !$0.hasPending } }
        }
        func flush() -> Bool {
            guard batchCount > 0 else { return true }
            let ok = transmit(UnsafeRawBufferPointer(start: base, count: batchBytes), batchCount > 1 ? segment : 0, UnsafePointer(writePath.pathPointer))
            batchBytes = 0
            batchCount = 0
            return ok
        }
        while packets < limit {
            let out = base + batchBytes
            var index = 0
            var written = 0
            while true {
                // Next stream with something to send, or -1 to finish the packet.
                while index < active.count, !active[index].hasPending { index += 1 }
                let s: StreamSender? = index < active.count ? active[index] : nil
                var flags = UInt32(NGTCP2_WRITE_STREAM_FLAG_MORE)
                var count = 0
                if let s {
                    let filled = s.fill(vecs, budget: maxUDP)
                    count = filled.count
                    if filled.reachesEnd && s.finQueued { flags |= UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) }
                }
                var pdatalen: ngtcp2_ssize = -1
                let n = pb_ngtcp2_conn_writev_stream(conn, writePath.pathPointer, &pi, out, maxUDP, &pdatalen, flags,
                                                     s?.streamID ?? -1, vecs.baseAddress, count, now)
                if let s, pdatalen >= 0 {
                    var total = 0
                    for i in 0..<count { total += vecs[i].len }
                    s.consumed(pdatalen, fin: flags & UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) != 0 && pdatalen == total)
                }
                if n == ngtcp2_ssize(NGTCP2_ERR_WRITE_MORE) {
                    if let s, !s.hasPending { index += 1 }
                    continue
                }
                if n == ngtcp2_ssize(NGTCP2_ERR_STREAM_DATA_BLOCKED) || n == ngtcp2_ssize(NGTCP2_ERR_STREAM_SHUT_WR)
                    || n == ngtcp2_ssize(NGTCP2_ERR_STREAM_NOT_FOUND) {
                    if n != ngtcp2_ssize(NGTCP2_ERR_STREAM_DATA_BLOCKED), let s { senders[s.streamID] = nil; active.remove(at: index) } else { index += 1 }
                    continue
                }
                if n < 0 {
                    _ = flush()
                    fail(.library("writing a packet", code: Int32(n)), closeWith: .liberr(Int32(n)), transmit: transmit)
                    return
                }
                written = n
                break
            }
            if written == 0 { break }
            datagramsSent += 1
            bytesSent += written
            packets += 1
            if batchCount > 0, written > segment {
                // A bigger packet cannot follow smaller ones in a batch: send those first.
                let carried = Array(UnsafeBufferPointer(start: out, count: written))
                if !flush() { return }
                carried.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: written) }
            }
            if batchCount == 0 { segment = written }
            batchBytes += written
            batchCount += 1
            // A shorter packet ends a batch (only the last may be short).
            if written < segment || batchCount >= batchLimit {
                if !flush() { return }
            }
        }
        _ = flush()
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
        guard let transmit else { return }
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
        let out = packetBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let n = reasonBytes.withUnsafeBufferPointer { rb -> ngtcp2_ssize in
            ccerr.reason = UnsafeMutablePointer(mutating: rb.baseAddress)
            ccerr.reasonlen = rb.count
            return pb_ngtcp2_conn_write_connection_close(conn, writePath.pathPointer, out, packetBuffer.count, &ccerr, MonotonicClock.now())
        }
        if n > 0 { _ = transmit(UnsafeRawBufferPointer(start: out, count: n), 0, UnsafePointer(writePath.pathPointer)) }
    }

    /// Records `failure` and closes; the CONNECTION_CLOSE goes out on the next
    /// `flushClose` (reads and timers have no transmit at hand).
    private func fail(_ f: QUICFailure, closeWith reason: CloseReason?, transmit: Transmit? = nil) {
        guard failure == nil, !isClosed else { return }
        failure = f
        if let reason {
            pendingClose = reason
            if let transmit { flushClose(transmit) }
        } else {
            isClosed = true
        }
    }

    private var pendingClose: CloseReason?

    /// Sends the CONNECTION_CLOSE a failure asked for, if any.
    func flushClose(_ transmit: @escaping Transmit) {
        guard let r = pendingClose else { return }
        pendingClose = nil
        close(r, transmit: transmit)
    }

    /// True once the connection is over or has a close to send.
    var isFinished: Bool { isClosed || pendingClose != nil }

    /// True once ngtcp2 has measured a round trip (the first acknowledgement arrived);
    /// latched, so the write path stops asking.
    private var rttSampled = false
    private var hasRTTSample: Bool {
        if !rttSampled { rttSampled = stats.first_rtt_sample_ts != .max }
        return rttSampled
    }

    /// ngtcp2's connection statistics now.
    var stats: ngtcp2_conn_stat {
        var s = ngtcp2_conn_stat()
        pb_ngtcp2_conn_get_conn_stat(conn, &s)
        return s
    }
}

/// A socket address in a stable heap box (ngtcp2 copies it; we only lend it).
final class SockAddrBox {
    private let storage: UnsafeMutablePointer<sockaddr_storage>
    let length: socklen_t

    init(_ address: SocketAddress) throws {
        storage = .allocate(capacity: 1)
        storage.initialize(to: sockaddr_storage())
        var len: socklen_t = 0
        let s = storage
        try address.withSockAddr { sa, l in
            UnsafeMutableRawPointer(s).copyMemory(from: sa, byteCount: Int(l))
            len = l
        }
        length = len
    }

    init(raw: UnsafeRawPointer, length: socklen_t) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: sockaddr_storage())
        UnsafeMutableRawPointer(storage).copyMemory(from: raw, byteCount: Int(length))
        self.length = length
    }

    deinit { storage.deallocate() }

    func withPointer<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        UnsafeRawPointer(storage).withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
}

extension UnsafeMutablePointer where Pointee == ngtcp2_path_storage {
    /// The storage's `path` member, at a stable address (the storage is on the heap).
    var pathPointer: UnsafeMutablePointer<ngtcp2_path> {
        (UnsafeMutableRawPointer(self) + MemoryLayout<ngtcp2_path_storage>.offset(of: \.path)!).assumingMemoryBound(to: ngtcp2_path.self)
    }
}
