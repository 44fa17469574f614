internal import CGnuTLS

/// SHA-256 (FIPS 180-4) by GnuTLS: the QUIC cell token and a peer certificate's
/// fingerprint (`GnuTLSSession.peerCertificateSHA256`).
public enum SHA256 {
    /// A digest's length in bytes.
    public static let byteCount = 32

    /// The digest of `bytes`.
    public static func digest(_ bytes: UnsafeRawBufferPointer) throws(GnuTLSError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        let rv = out.withUnsafeMutableBytes { gnutls_hash_fast(GNUTLS_DIG_SHA256, bytes.baseAddress, bytes.count, $0.baseAddress) }
        try GnuTLSError.check(rv, "computing a SHA-256 digest")
        return out
    }

    /// The digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) throws(GnuTLSError) -> [UInt8] {
        try bytes.withUnsafeBytes { b in Result { () throws(GnuTLSError) in try digest(b) } }.get()
    }
}
