import CNgtcp2
import GnuTLSSupport
import PeerBenchPlugin

/// The connection's TLS: a GnuTLS session whose handshake bytes ngtcp2_crypto_gnutls
/// carries in CRYPTO frames.
extension QUICConnection {
    /// TLS 1.3 only. `%DISABLE_TLS13_COMPAT_MODE` because QUIC forbids the
    /// middlebox-compatibility ChangeCipherSpec (aioquic rejects the ClientHello
    /// with PROTOCOL_VIOLATION otherwise).
    static let tlsPriority =
        "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:%DISABLE_TLS13_COMPAT_MODE"

    /// Certificate credentials with QUIC's priorities: `caFile` verifies the peer and,
    /// when given, `certFile` + `keyFile` are this endpoint's identity.
    static func tlsCredentials(caFile: String?, certFile: String?, keyFile: String?) throws -> GnuTLSCredentials {
        try GnuTLSCredentials(trusting: caFile, certificateFile: certFile, keyFile: keyFile, priority: tlsPriority)
    }

    /// A TLS session configured for QUIC, to hand to `init`.
    /// - Parameters:
    ///   - verifyName: client only: the name (DNS name or IP address) the server's
    ///     certificate must cover; nil when it is checked otherwise (a pin).
    ///   - requireClientCertificate: server only: mutual TLS.
    ///   - resumption: server only: hand out session tickets (sent once the handshake
    ///     completed: `sendSessionTicket`) and resume them; with its anti-replay, accept 0-RTT.
    ///   - earlyData: client only: offer 0-RTT when resuming a session that allows it.
    static func makeTLS(
        server: Bool, credentials: GnuTLSCredentials, alpn: String, verifyName: String?,
        requireClientCertificate: Bool, resumption: QUICServerResumption? = nil,
        earlyData: Bool = true
    ) throws -> GnuTLSSession {
        let tls = try GnuTLSSession(
            server ? .server : .client, credentials: credentials, forQUIC: true,
            earlyData: server || earlyData, sendsTicketsItself: resumption != nil)
        if let resumption { try tls.enableSessionTickets(key: resumption.ticketKey) }
        let configured =
            server
            ? ngtcp2_crypto_gnutls_configure_server_session(tls.handle)
            : ngtcp2_crypto_gnutls_configure_client_session(tls.handle)
        if configured != 0 { throw TransportError("ngtcp2_crypto_gnutls could not configure the TLS session") }
        if let antiReplay = resumption?.antiReplay { try tls.enableEarlyData(antiReplay: antiReplay) }
        // ALPN is mandatory: a peer that speaks another application protocol is refused
        // during the handshake (TLS alert 120) instead of misreading our frames.
        try tls.requireALPN(alpn)
        if server {
            if requireClientCertificate { tls.requireClientCertificate() }
        } else if let verifyName {
            try tls.verifyServer(named: verifyName)
        }
        return tls
    }

    /// Points ngtcp2_crypto at this connection (through `connRef`, the session's user
    /// pointer) and the connection at the session.
    func attachTLS() {
        connRef.initialize(to: ngtcp2_crypto_conn_ref(get_conn: pb_get_conn_cb, user_data: UnsafeMutableRawPointer(conn)))
        tls.lendUserPointer(UnsafeMutableRawPointer(connRef))
        ngtcp2_conn_set_tls_native_handle(conn, UnsafeMutableRawPointer(tls.handle))
    }
}
