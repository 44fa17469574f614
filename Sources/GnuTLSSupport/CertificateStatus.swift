internal import CGnuTLS

/// Why a certificate did not verify: GnuTLS's status bits (0 = verified).
public struct CertificateStatus: Sendable, Equatable {
    /// GnuTLS's `gnutls_certificate_status_t` bits.
    public let rawValue: UInt32
    /// The status GnuTLS reported (`GnuTLSSession.verifyStatus`).
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No bit set: the certificate verified.
    public var isVerified: Bool { rawValue == 0 }
    /// Not issued by a trusted CA.
    public var signerNotFound: Bool { has(GNUTLS_CERT_SIGNER_NOT_FOUND.rawValue) }
    /// Issued by a certificate that is not a CA.
    public var signerNotCA: Bool { has(GNUTLS_CERT_SIGNER_NOT_CA.rawValue) }
    /// Does not cover the name the client expects.
    public var unexpectedOwner: Bool { has(GNUTLS_CERT_UNEXPECTED_OWNER.rawValue) }
    /// Past its end date.
    public var expired: Bool { has(GNUTLS_CERT_EXPIRED.rawValue) }
    /// Before its start date.
    public var notActivated: Bool { has(GNUTLS_CERT_NOT_ACTIVATED.rawValue) }
    /// Revoked by its issuer.
    public var revoked: Bool { has(GNUTLS_CERT_REVOKED.rawValue) }

    /// GnuTLS's sentence for the status, for causes not named above.
    public var text: String {
        var out = gnutls_datum_t()
        guard gnutls_certificate_verification_status_print(rawValue, GNUTLS_CRT_X509, &out, 0) == 0, let data = out.data else {
            return "status 0x\(String(rawValue, radix: 16))"
        }
        defer { pb_tls_free(data) }
        return String(cString: UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self))
    }

    private func has(_ bit: UInt32) -> Bool { rawValue & bit != 0 }
}
