#if canImport(Glibc)
import Glibc
#endif
import CGnuTLS
import PeerBenchPlugin

/// One TLS 1.3 session over a connected TCP socket. Owns the `gnutls_session_t`
/// (and the C copies GnuTLS keeps pointers to) and frees them in `deinit`.
/// Blocking: the socket's receive/send timeouts bound every call, and shutting the
/// socket down (the runner's cancellation) makes a blocked call fail at once.
final class TLSSession {
    /// TLS 1.3 only; with a PSK, the (EC)DHE-PSK and plain PSK key exchanges.
    static let certificatePriority = "NORMAL:-VERS-ALL:+VERS-TLS1.3"
    static let pskPriority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+ECDHE-PSK:+PSK"

    private var session: gnutls_session_t?
    private let socket: Socket
    private let credentials: TLSCredentials
    let role: String
    /// GnuTLS keeps the verification name's pointer without copying it (QUIC-NOTES):
    /// a C copy that lives as long as the session.
    private var verifyName: UnsafeMutablePointer<CChar>?
    /// The server's PSK, reached from the C key callback through the session pointer.
    private var pskDatum: UnsafeMutablePointer<gnutls_datum_t>?
    private var pskBytes: UnsafeMutableBufferPointer<UInt8>?
    private let expectedName: String?
    private let caFile: String?
    /// The SHA-256 the server's certificate must have (`CertificatePin`), checked after
    /// the handshake instead of the CA and name; nil = CA and name.
    private let pin: [UInt8]?

    /// A client session that verifies the server's certificate against `name`
    /// (certificate mode), or against `pin` when one is given (serve's own identity
    /// over a remote link), or authenticates with the PSK.
    init(client socket: Socket, credentials: TLSCredentials, options: TLSOptions, verifyName name: String, caFile: String,
         pin: [UInt8]? = nil) throws {
        self.socket = socket
        self.credentials = credentials
        role = "client"
        expectedName = name
        self.caFile = caFile
        self.pin = credentials.kind == .certificate ? pin : nil
        try check("gnutls_init", gnutls_init(&session, UInt32(GNUTLS_CLIENT.rawValue | GNUTLS_NO_SIGNAL.rawValue)))  // EPIPE, not SIGPIPE
        try configure(priority: credentials.kind == .psk ? Self.pskPriority : Self.certificatePriority)
        if credentials.kind == .certificate && self.pin == nil {
            if !Self.isIPAddress(name) {
                try check("gnutls_server_name_set", gnutls_server_name_set(session, GNUTLS_NAME_DNS, name, name.utf8.count))
            }
            verifyName = strdup(name)
            gnutls_session_set_verify_cert(session, verifyName, 0)
        }
    }

    /// A server session presenting the configured identity (or accepting the PSK).
    init(server socket: Socket, credentials: TLSCredentials, options: TLSOptions) throws {
        self.socket = socket
        self.credentials = credentials
        role = "server"
        expectedName = nil
        caFile = nil
        pin = nil
        try check("gnutls_init", gnutls_init(&session, UInt32(GNUTLS_SERVER.rawValue | GNUTLS_NO_SIGNAL.rawValue)))  // EPIPE, not SIGPIPE
        try configure(priority: credentials.kind == .psk ? Self.pskPriority : Self.certificatePriority)
        if let key = options.psk {
            let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: key.bytes.count)
            _ = bytes.initialize(from: key.bytes)
            pskBytes = bytes
            let datum = UnsafeMutablePointer<gnutls_datum_t>.allocate(capacity: 1)
            datum.initialize(to: gnutls_datum_t(data: bytes.baseAddress, size: UInt32(bytes.count)))
            pskDatum = datum
            gnutls_session_set_ptr(session, datum)
        } else {
            gnutls_certificate_server_set_request(session, GNUTLS_CERT_IGNORE)
        }
    }

    private func configure(priority: String) throws {
        var errorPosition: UnsafePointer<CChar>?
        try check("gnutls_priority_set_direct(\(priority))", gnutls_priority_set_direct(session, priority, &errorPosition))
        try credentials.apply(to: session!)
        pb_tls_transport_set_fd(session, socket.fd)
    }

    deinit {
        if let session { gnutls_deinit(session) }
        free(verifyName)
        pskDatum?.deallocate()
        pskBytes?.deallocate()
    }

    /// Runs the handshake. A certificate that does not verify is reported by cause:
    /// unknown CA, name mismatch, expired, ...
    func handshake() throws {
        while true {
            let r = gnutls_handshake(session)
            if r == 0 {
                if let pin { try CertificatePin.check(presented: peerCertificateSHA256(), pinned: pin, who: "tls client") }
                return
            }
            if r == GNUTLS_E_INTERRUPTED { continue }
            if r == GNUTLS_E_AGAIN { throw TransportError("tls \(role): the handshake timed out (cell deadline)") }
            if r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR { throw verificationError() }
            // A PSK server that cannot verify the client's binder just ends the
            // handshake, so the client sees no reason: name the likely one.
            let hint = credentials.kind == .psk ? " (with a pre-shared key: do both sides hold the same key and identity?)" : ""
            throw TransportError("tls \(role): handshake failed: \(String(cString: gnutls_strerror(r)))"
                                 + (r == GNUTLS_E_FATAL_ALERT_RECEIVED ? " (\(alertName()))" : "") + hint)
        }
    }

    /// SHA-256 of the certificate the peer presented (its DER), nil without one.
    private func peerCertificateSHA256() -> [UInt8]? {
        var count: UInt32 = 0
        guard let chain = gnutls_certificate_get_peers(session, &count), count > 0 else { return nil }
        var digest = [UInt8](repeating: 0, count: CertificatePin.length)
        guard gnutls_hash_fast(GNUTLS_DIG_SHA256, chain[0].data, Int(chain[0].size), &digest) == 0 else { return nil }
        return digest
    }

    private func alertName() -> String {
        let alert = gnutls_alert_get(session)
        return gnutls_alert_get_name(alert).map { String(cString: $0) } ?? "alert \(alert.rawValue)"
    }

    /// Names the verification failure the way a user can act on it.
    private func verificationError() -> TransportError {
        let status = gnutls_session_get_verify_cert_status(session)
        var causes: [String] = []
        if status & GNUTLS_CERT_SIGNER_NOT_FOUND.rawValue != 0 {
            causes.append("unknown CA: the server's certificate was not issued by a CA in \(caFile ?? "the CA file")")
        }
        if status & GNUTLS_CERT_UNEXPECTED_OWNER.rawValue != 0 {
            causes.append("name mismatch: the server's certificate does not name \"\(expectedName ?? "")\" (set serverName)")
        }
        if status & GNUTLS_CERT_EXPIRED.rawValue != 0 { causes.append("the server's certificate has expired (run certs/regenerate.sh)") }
        if status & GNUTLS_CERT_NOT_ACTIVATED.rawValue != 0 { causes.append("the server's certificate is not valid yet") }
        if status & GNUTLS_CERT_REVOKED.rawValue != 0 { causes.append("the server's certificate is revoked") }
        if status & GNUTLS_CERT_SIGNER_NOT_CA.rawValue != 0 { causes.append("the certificate's issuer is not a CA") }
        if causes.isEmpty {
            var text = gnutls_datum_t()
            if gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == 0, let data = text.data {
                causes.append(String(cString: UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self)))
                pb_tls_free(data)
            } else {
                causes.append("status 0x\(String(status, radix: 16))")
            }
        }
        return TransportError("tls client: the server's certificate does not verify: " + causes.joined(separator: "; "))
    }

    /// Sends every byte (as many records as needed).
    func sendAll(_ buffer: UnsafeRawBufferPointer) throws {
        var off = 0
        while off < buffer.count {
            let n = gnutls_record_send(session, buffer.baseAddress! + off, buffer.count - off)
            if n == Int(GNUTLS_E_INTERRUPTED) { continue }
            if n == Int(GNUTLS_E_AGAIN) { throw TransportError("tls \(role): send timed out (cell deadline)") }
            if n < 0 { throw gnutlsError("gnutls_record_send", Int32(n)) }
            off += n
        }
    }

    /// One record's worth of plaintext; 0 on the peer's close_notify or end of stream.
    func receive(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = gnutls_record_recv(session, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if n == Int(GNUTLS_E_INTERRUPTED) { continue }
            if n == Int(GNUTLS_E_AGAIN) { throw TransportError("tls \(role): timed out waiting for data (cell deadline)") }
            // A peer that closes the TCP connection without close_notify: treat as end of stream.
            if n == Int(GNUTLS_E_PREMATURE_TERMINATION) { return 0 }
            throw gnutlsError("gnutls_record_recv", Int32(n))
        }
    }

    /// Sends close_notify (our side is done writing).
    func bye() {
        _ = gnutls_bye(session, GNUTLS_SHUT_WR)
    }

    /// Shuts the TCP socket down in both directions without a TLS alert: a thread
    /// blocked in GnuTLS on it (another thread's send or receive) returns at once.
    func shutdownSocket() {
        socket.shutdown()
    }

    /// What was negotiated, for `extra.tls`.
    func description() -> JSONObject {
        var o = JSONObject()
        o["version"] = JSONValue(gnutls_protocol_get_name(gnutls_protocol_get_version(session)).map { String(cString: $0) })
        o["cipher"] = JSONValue(gnutls_cipher_get_name(gnutls_cipher_get(session)).map { String(cString: $0) })
        o["group"] = JSONValue(gnutls_group_get_name(gnutls_group_get(session)).map { String(cString: $0) })
        o["authentication"] = .string(credentials.kind == .psk ? "psk" : pin == nil ? "x509" : "x509-pinned")
        if let desc = gnutls_session_get_desc(session) {
            o["description"] = .string(String(cString: desc))
            pb_tls_free(desc)
        }
        return o
    }

    static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }
}
