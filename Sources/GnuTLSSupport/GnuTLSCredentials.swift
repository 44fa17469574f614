internal import CGnuTLS

#if canImport(Glibc)
    import Glibc
#endif

/// What one endpoint brings to each of its sessions: the CA it trusts and its own
/// certificate, or a TLS 1.3 pre-shared key, and the priority string (what it offers),
/// parsed once so that no handshake pays for parsing it. Owns the GnuTLS credential
/// and priority objects and frees them in `deinit`; a server's key is wiped first.
///
/// One set of credentials serves any number of sessions, on any threads.
public final class GnuTLSCredentials: @unchecked Sendable {
    // @unchecked: holds GnuTLS handles, which GnuTLS lets many sessions read at once; nothing changes them after init.

    /// How sessions with these credentials authenticate.
    public enum Kind: Sendable { case certificate, psk }
    public let kind: Kind

    let priority: OpaquePointer
    private(set) var certificate: OpaquePointer?
    private(set) var pskClient: OpaquePointer?
    private(set) var pskServer: OpaquePointer?
    /// A server's key and the identity it belongs to (nil: any identity), which
    /// `PSKServerLookup` hands to GnuTLS's key callback.
    private(set) var pskServerKey: UnsafeMutableBufferPointer<UInt8>?
    private(set) var pskServerIdentity: UnsafeMutablePointer<CChar>?

    private init(kind: Kind, priority text: String) throws(GnuTLSError) {
        self.kind = kind
        var p: gnutls_priority_t?
        var errorPosition: UnsafePointer<CChar>?
        try GnuTLSError.check(gnutls_priority_init(&p, text, &errorPosition), "parsing the priority string \"\(text)\"")
        priority = p!
    }

    /// Certificate credentials that trust `caFile` (PEM: every certificate in it) to
    /// verify the peer, and, with `certificateFile` and `keyFile`, present that identity.
    /// - Throws: `GnuTLSError` naming the file that did not load.
    public convenience init(
        trusting caFile: String?, certificateFile: String? = nil, keyFile: String? = nil,
        priority: String
    ) throws(GnuTLSError) {
        try self.init(kind: .certificate, priority: priority)
        var c: gnutls_certificate_credentials_t?
        try GnuTLSError.check(gnutls_certificate_allocate_credentials(&c), "allocating certificate credentials")
        certificate = c
        if let caFile {
            let n = try GnuTLSError.check(gnutls_certificate_set_x509_trust_file(c, caFile, GNUTLS_X509_FMT_PEM), "loading the CA file \(caFile)")
            if n == 0 { throw GnuTLSError("loading the CA file \(caFile)", code: GNUTLS_E_NO_CERTIFICATE_FOUND) }
        }
        if let certificateFile, let keyFile {
            try GnuTLSError.check(
                gnutls_certificate_set_x509_key_file(c, certificateFile, keyFile, GNUTLS_X509_FMT_PEM),
                "loading the certificate \(certificateFile) with the key \(keyFile)")
        }
    }

    /// A PSK client's credentials: it names `identity` and proves it holds `key`.
    public convenience init(pskIdentity identity: String, key: [UInt8], priority: String) throws(GnuTLSError) {
        try self.init(kind: .psk, priority: priority)
        var c: gnutls_psk_client_credentials_t?
        try GnuTLSError.check(gnutls_psk_allocate_client_credentials(&c), "allocating PSK client credentials")
        pskClient = c
        var bytes = key
        // GnuTLS copies the identity and the key.
        let r = bytes.withUnsafeMutableBufferPointer { b in
            var datum = gnutls_datum_t(data: b.baseAddress, size: UInt32(b.count))
            return gnutls_psk_set_client_credentials(c, identity, &datum, GNUTLS_PSK_KEY_RAW)
        }
        bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        try GnuTLSError.check(r, "setting the pre-shared key")
    }

    /// A PSK server's credentials: it accepts a client that holds `key` and names
    /// `identity` (nil: whatever identity it names). A client naming another identity
    /// fails the handshake like a wrong key (`GnuTLSSession.pskLookup` tells them apart).
    public convenience init(pskServerKey key: [UInt8], identity: String?, priority: String) throws(GnuTLSError) {
        try self.init(kind: .psk, priority: priority)
        var c: gnutls_psk_server_credentials_t?
        try GnuTLSError.check(gnutls_psk_allocate_server_credentials(&c), "allocating PSK server credentials")
        pskServer = c
        gnutls_psk_set_server_credentials_function(c, pskServerKeyCallback)
        let stored = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: key.count)
        _ = stored.initialize(from: key)
        pskServerKey = stored
        pskServerIdentity = identity.map { strdup($0) }
    }

    deinit {
        if let certificate { gnutls_certificate_free_credentials(certificate) }
        if let pskClient { gnutls_psk_free_client_credentials(pskClient) }
        if let pskServer { gnutls_psk_free_server_credentials(pskServer) }
        gnutls_priority_deinit(priority)
        if let pskServerKey {
            // The key does not linger in freed memory.
            pskServerKey.update(repeating: 0)
            pskServerKey.deallocate()
        }
        free(pskServerIdentity)
    }

    /// Attaches these credentials and the priorities to `session`.
    func apply(to session: gnutls_session_t) throws(GnuTLSError) {
        try GnuTLSError.check(gnutls_priority_set(session, priority), "setting the priorities")
        if let certificate {
            try GnuTLSError.check(
                gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(certificate)), "setting the credentials")
        } else if let psk = pskClient ?? pskServer {
            try GnuTLSError.check(gnutls_credentials_set(session, GNUTLS_CRD_PSK, UnsafeMutableRawPointer(psk)), "setting the credentials")
        }
    }
}
