import CNgtcp2
import PeerBenchPlugin

/// GnuTLS certificate credentials (trusted CA, own identity), owned and freed here.
final class TLSCredentials {
    let handle: gnutls_certificate_credentials_t

    /// Loads `caFile` as the trust anchor (to verify the peer) and, when given,
    /// `certFile` + `keyFile` as this endpoint's identity.
    init(caFile: String?, certFile: String?, keyFile: String?) throws {
        var cred: gnutls_certificate_credentials_t?
        try gnutlsCheck(gnutls_certificate_allocate_credentials(&cred), "allocating TLS credentials")
        handle = cred!
        if let caFile {
            let n = gnutls_certificate_set_x509_trust_file(handle, caFile, GNUTLS_X509_FMT_PEM)
            if n < 0 { throw TransportError("cannot load CA file \(caFile): \(gnutlsError(n))") }
            if n == 0 { throw TransportError("CA file \(caFile) contains no certificate") }
        }
        if let certFile, let keyFile {
            let r = gnutls_certificate_set_x509_key_file(handle, certFile, keyFile, GNUTLS_X509_FMT_PEM)
            if r < 0 { throw TransportError("cannot load certificate \(certFile) with key \(keyFile): \(gnutlsError(r))") }
        }
    }

    deinit { gnutls_certificate_free_credentials(handle) }
}

/// GnuTLS's message for an error code.
func gnutlsError(_ code: Int32) -> String { String(cString: gnutls_strerror(code)) }

func gnutlsCheck(_ code: Int32, _ what: String) throws {
    if code < 0 { throw TransportError("\(what) failed: \(gnutlsError(code))") }
}
