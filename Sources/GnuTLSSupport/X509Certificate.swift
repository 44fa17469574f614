internal import CGnuTLS
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// An X.509 certificate, owned and freed here (`gnutls_x509_crt_t`).
public final class X509Certificate {
    let handle: OpaquePointer

    private init() throws(GnuTLSError) {
        var crt: gnutls_x509_crt_t?
        try GnuTLSError.check(gnutls_x509_crt_init(&crt), "gnutls_x509_crt_init")
        handle = crt!
    }

    deinit { gnutls_x509_crt_deinit(handle) }

    /// The first certificate of PEM text (a certificate file's content).
    /// - Throws: `GnuTLSError` when `pem` holds no PEM certificate.
    public convenience init(pem: [UInt8]) throws(GnuTLSError) {
        try self.init()
        var bytes = pem
        let r = bytes.withUnsafeMutableBufferPointer { b in
            var datum = gnutls_datum_t(data: b.baseAddress, size: UInt32(b.count))
            return gnutls_x509_crt_import(handle, &datum, GNUTLS_X509_FMT_PEM)
        }
        try GnuTLSError.check(r, "reading a PEM certificate")
    }

    /// A certificate for `commonName`, signed by its own `key` (SHA-256): version 3, a
    /// random positive 128-bit serial, not a CA, for digital signatures only. Valid from
    /// an hour ago (a peer's clock may be a little behind) for `validDays` days.
    public convenience init(selfSignedWith key: X509PrivateKey, commonName: String, validDays: Int) throws(GnuTLSError) {
        try self.init()
        try GnuTLSError.check(gnutls_x509_crt_set_version(handle, 3), "setting the certificate's version")
        var serial: [UInt8]
        do { serial = try SecureRandom.bytes(16) } catch {
            throw GnuTLSError("drawing the certificate's serial (\(error))", code: GNUTLS_E_RANDOM_FAILED)
        }
        serial[0] &= 0x7f  // a positive integer
        try GnuTLSError.check(gnutls_x509_crt_set_serial(handle, serial, serial.count), "setting the certificate's serial")
        let now = time(nil)
        try GnuTLSError.check(gnutls_x509_crt_set_activation_time(handle, now - 3_600), "setting the certificate's start")
        try GnuTLSError.check(gnutls_x509_crt_set_expiration_time(handle, now + time_t(validDays * 86_400)), "setting the certificate's end")
        try GnuTLSError.check(
            gnutls_x509_crt_set_dn_by_oid(handle, GNUTLS_OID_X520_COMMON_NAME, 0, commonName, UInt32(commonName.utf8.count)),
            "setting the certificate's name")
        try GnuTLSError.check(gnutls_x509_crt_set_key(handle, key.handle), "setting the certificate's key")
        try GnuTLSError.check(gnutls_x509_crt_set_basic_constraints(handle, 0, -1), "setting the certificate's constraints")
        try GnuTLSError.check(gnutls_x509_crt_set_key_usage(handle, UInt32(GNUTLS_KEY_DIGITAL_SIGNATURE)), "setting the certificate's key usage")
        try GnuTLSError.check(gnutls_x509_crt_sign2(handle, handle, key.handle, GNUTLS_DIG_SHA256, 0), "signing the certificate")
    }

    /// SHA-256 of the certificate's DER encoding: what a peer's handshake fingerprint
    /// (`GnuTLSSession.peerCertificateSHA256`) and a `CertificatePin` compare.
    public func sha256() throws(GnuTLSError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: CertificatePin.length)
        var size = digest.count
        try GnuTLSError.check(gnutls_x509_crt_get_fingerprint(handle, GNUTLS_DIG_SHA256, &digest, &size), "computing the certificate's SHA-256")
        return Array(digest.prefix(size))
    }

    /// The certificate as PEM text.
    public func pem() throws(GnuTLSError) -> [UInt8] {
        try exported("exporting the certificate") { gnutls_x509_crt_export2(handle, GNUTLS_X509_FMT_PEM, &$0) }
    }
}
