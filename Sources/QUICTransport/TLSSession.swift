#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import PeerBenchPlugin

/// One GnuTLS session configured for QUIC (TLS 1.3 only), owned and freed here.
///
/// It also owns the two things GnuTLS and ngtcp2 keep pointers to for the whole
/// session: the `ngtcp2_crypto_conn_ref` through which ngtcp2_crypto finds the
/// connection, and the C copy of the verification host name (GnuTLS does not copy
/// it; a Swift string's temporary buffer would dangle and verification would fail
/// with "name does not match").
final class TLSSession {
    /// TLS 1.3 only. `%DISABLE_TLS13_COMPAT_MODE` because QUIC forbids the
    /// middlebox-compatibility ChangeCipherSpec (aioquic rejects the ClientHello
    /// with PROTOCOL_VIOLATION otherwise).
    static let priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:%DISABLE_TLS13_COMPAT_MODE"

    let session: gnutls_session_t
    let connRef: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>
    private var verifyHost: UnsafeMutablePointer<CChar>?
    /// Keeps the credentials alive as long as the session uses them.
    private let credentials: TLSCredentials
    let isServer: Bool

    /// - Parameters:
    ///   - verifyName: client only: the name (DNS name or IP address) the server's
    ///     certificate must cover. Verification against the credentials' CA is always on.
    ///   - requireClientCertificate: server only: mutual TLS.
    init(server: Bool, credentials: TLSCredentials, alpn: String, verifyName: String?, requireClientCertificate: Bool) throws {
        isServer = server
        self.credentials = credentials
        var s: gnutls_session_t?
        let flags = (server ? GNUTLS_SERVER : GNUTLS_CLIENT).rawValue | UInt32(GNUTLS_ENABLE_EARLY_DATA.rawValue) | UInt32(GNUTLS_NO_END_OF_EARLY_DATA.rawValue)
        try gnutlsCheck(gnutls_init(&s, flags), "gnutls_init")
        session = s!
        connRef = .allocate(capacity: 1)
        connRef.initialize(to: ngtcp2_crypto_conn_ref(get_conn: pb_get_conn_cb, user_data: nil))

        try gnutlsCheck(gnutls_priority_set(session, try TLSPriority.shared().handle), "setting the TLS 1.3 priorities")
        let configured = server ? ngtcp2_crypto_gnutls_configure_server_session(session) : ngtcp2_crypto_gnutls_configure_client_session(session)
        if configured != 0 { throw TransportError("ngtcp2_crypto_gnutls could not configure the TLS session") }
        gnutls_session_set_ptr(session, connRef)
        try gnutlsCheck(gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials.handle)), "setting TLS credentials")

        // ALPN is mandatory: a peer that speaks another application protocol is refused
        // during the handshake (TLS alert 120) instead of misreading our frames.
        var alpnBytes = Array(alpn.utf8)
        try alpnBytes.withUnsafeMutableBufferPointer { buf in
            var datum = gnutls_datum_t(data: buf.baseAddress, size: UInt32(buf.count))
            try gnutlsCheck(gnutls_alpn_set_protocols(session, &datum, 1, UInt32(GNUTLS_ALPN_MANDATORY.rawValue)), "setting ALPN")
        }

        if server {
            if requireClientCertificate {
                gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE)
                gnutls_session_set_verify_cert(session, nil, 0)
            }
        } else if let verifyName {
            // SNI must not carry an IP literal (RFC 6066), so only DNS names are sent.
            if !isIPAddress(verifyName) {
                try gnutlsCheck(gnutls_server_name_set(session, GNUTLS_NAME_DNS, verifyName, verifyName.utf8.count), "setting SNI")
            }
            verifyHost = strdup(verifyName)
            gnutls_session_set_verify_cert(session, verifyHost, 0)
        }
    }

    deinit {
        gnutls_deinit(session)
        connRef.deallocate()
        free(verifyHost)
    }

    /// SHA-256 of the certificate the peer presented (its DER), nil without one.
    func peerCertificateSHA256() -> [UInt8]? {
        var count: UInt32 = 0
        guard let chain = gnutls_certificate_get_peers(session, &count), count > 0 else { return nil }
        var digest = [UInt8](repeating: 0, count: CertificatePin.length)
        guard gnutls_hash_fast(GNUTLS_DIG_SHA256, chain[0].data, Int(chain[0].size), &digest) == 0 else { return nil }
        return digest
    }

    /// Points ngtcp2_crypto at the connection once it exists.
    func attach(_ conn: OpaquePointer) {
        connRef.pointee.user_data = UnsafeMutableRawPointer(conn)
        ngtcp2_conn_set_tls_native_handle(conn, UnsafeMutableRawPointer(session))
    }

    /// The status bits of the automatic certificate verification (0 = verified).
    var verifyStatus: UInt32 { gnutls_session_get_verify_cert_status(session) }

    /// Negotiated ALPN, cipher and key-exchange group, for the record.
    var negotiated: (alpn: String?, cipher: String?, group: String?) {
        var datum = gnutls_datum_t()
        var alpn: String?
        if gnutls_alpn_get_selected_protocol(session, &datum) == 0, let d = datum.data {
            alpn = String(decoding: UnsafeBufferPointer(start: d, count: Int(datum.size)), as: UTF8.self)
        }
        let cipher = gnutls_cipher_get_name(gnutls_cipher_get(session)).map { String(cString: $0) }
        let group = gnutls_group_get_name(gnutls_group_get(session)).map { String(cString: $0) }
        return (alpn, cipher, group)
    }
}

func isIPAddress(_ s: String) -> Bool {
    var a4 = in_addr()
    var a6 = in6_addr()
    return inet_pton(AF_INET, s, &a4) == 1 || inet_pton(AF_INET6, s, &a6) == 1
}

/// The parsed priority string, shared by every session: parsing it anew would cost
/// each handshake tens of microseconds. GnuTLS allows one priority cache to serve
/// many sessions at once.
final class TLSPriority: @unchecked Sendable {
    let handle: gnutls_priority_t

    private init(_ text: String) throws {
        var p: gnutls_priority_t?
        var errPos: UnsafePointer<CChar>?
        try gnutlsCheck(gnutls_priority_init(&p, text, &errPos), "parsing the TLS priority string")
        handle = p!
    }

    deinit { gnutls_priority_deinit(handle) }

    private static let cached = Result { try TLSPriority(TLSSession.priority) }
    static func shared() throws -> TLSPriority { try cached.get() }
}
