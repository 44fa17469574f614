import CGnuTLS
import Foundation
import PeerBenchPlugin

/// The credentials one side of a cell uses: X.509 (the bundled test CA and server
/// identity by default) or a TLS 1.3 pre-shared key. Owns the GnuTLS credential
/// objects and frees them in `deinit`.
final class TLSCredentials: @unchecked Sendable {
    enum Kind { case certificate, psk }
    let kind: Kind
    private var certificate: gnutls_certificate_credentials_t?
    private var pskClient: gnutls_psk_client_credentials_t?
    private var pskServer: gnutls_psk_server_credentials_t?

    /// Client: trust `caFile` (certificate mode) or present `identity` + key (PSK mode).
    init(clientWith config: TLSOptions, files: TLSFiles) throws {
        if let key = config.psk {
            kind = .psk
            try check("gnutls_psk_allocate_client_credentials", gnutls_psk_allocate_client_credentials(&pskClient))
            try key.hex.withCString { hex in
                var datum = gnutls_datum_t(data: UnsafeMutableRawPointer(mutating: hex).assumingMemoryBound(to: UInt8.self),
                                           size: UInt32(key.hex.utf8.count))
                try check("gnutls_psk_set_client_credentials",
                          gnutls_psk_set_client_credentials(pskClient, config.pskIdentity, &datum, GNUTLS_PSK_KEY_HEX))
            }
        } else {
            kind = .certificate
            try check("gnutls_certificate_allocate_credentials", gnutls_certificate_allocate_credentials(&certificate))
            let n = gnutls_certificate_set_x509_trust_file(certificate, files.ca, GNUTLS_X509_FMT_PEM)
            if n < 0 { throw TransportError("tls: cannot load the CA file \(files.ca): \(String(cString: gnutls_strerror(n)))") }
            if n == 0 { throw TransportError("tls: the CA file \(files.ca) holds no certificate") }
        }
    }

    /// Server: present `certFile`/`keyFile` (certificate mode) or accept the PSK.
    init(serverWith config: TLSOptions, files: TLSFiles) throws {
        if config.psk != nil {
            kind = .psk
            try check("gnutls_psk_allocate_server_credentials", gnutls_psk_allocate_server_credentials(&pskServer))
            pb_tls_psk_use_session_key(pskServer)
        } else {
            kind = .certificate
            try check("gnutls_certificate_allocate_credentials", gnutls_certificate_allocate_credentials(&certificate))
            let r = gnutls_certificate_set_x509_key_file(certificate, files.cert, files.key, GNUTLS_X509_FMT_PEM)
            if r < 0 {
                throw TransportError("tls: cannot load the server identity \(files.cert) / \(files.key): \(String(cString: gnutls_strerror(r)))")
            }
        }
    }

    /// Attaches these credentials to `session`.
    func apply(to session: gnutls_session_t) throws {
        switch kind {
        case .certificate:
            try check("gnutls_credentials_set", gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(certificate)))
        case .psk:
            let cred = pskClient.map { UnsafeMutableRawPointer($0) } ?? pskServer.map { UnsafeMutableRawPointer($0) }
            try check("gnutls_credentials_set", gnutls_credentials_set(session, GNUTLS_CRD_PSK, cred))
        }
    }

    deinit {
        if let certificate { gnutls_certificate_free_credentials(certificate) }
        if let pskClient { gnutls_psk_free_client_credentials(pskClient) }
        if let pskServer { gnutls_psk_free_server_credentials(pskServer) }
    }
}
