internal import CGnuTLS

/// A private key, owned and freed here (`gnutls_x509_privkey_t`).
public final class X509PrivateKey {
    let handle: OpaquePointer

    private init() throws(GnuTLSError) {
        var key: gnutls_x509_privkey_t?
        try GnuTLSError.check(gnutls_x509_privkey_init(&key), "gnutls_x509_privkey_init")
        handle = key!
    }

    deinit { gnutls_x509_privkey_deinit(handle) }

    /// A fresh ECDSA key on the P-256 curve.
    public static func generateECDSAP256() throws(GnuTLSError) -> X509PrivateKey {
        let key = try X509PrivateKey()
        try GnuTLSError.check(gnutls_x509_privkey_generate(key.handle, GNUTLS_PK_ECDSA, 256, 0), "generating an ECDSA P-256 key")
        return key
    }

    /// The key as PEM text (for ECDSA `BEGIN EC PRIVATE KEY`, as `certtool` writes it).
    public func pem() throws(GnuTLSError) -> [UInt8] {
        try exported("exporting the private key") { gnutls_x509_privkey_export2(handle, GNUTLS_X509_FMT_PEM, &$0) }
    }
}

/// The bytes GnuTLS exported into `datum` (which it allocated and which is freed here).
func exported(_ operation: String, _ body: (inout gnutls_datum_t) -> Int32) throws(GnuTLSError) -> [UInt8] {
    var datum = gnutls_datum_t()
    try GnuTLSError.check(body(&datum), operation)
    defer { pb_tls_free(datum.data) }
    return Array(UnsafeBufferPointer(start: datum.data, count: Int(datum.size)))
}
