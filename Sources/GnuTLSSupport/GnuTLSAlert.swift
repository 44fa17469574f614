internal import CGnuTLS

/// A TLS alert description (RFC 8446, section 6), by GnuTLS's number.
public struct GnuTLSAlert: Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let decryptError = GnuTLSAlert(rawValue: GNUTLS_A_DECRYPT_ERROR.rawValue)
    public static let unknownPSKIdentity = GnuTLSAlert(rawValue: GNUTLS_A_UNKNOWN_PSK_IDENTITY.rawValue)
    public static let badRecordMAC = GnuTLSAlert(rawValue: GNUTLS_A_BAD_RECORD_MAC.rawValue)
    public static let userCanceled = GnuTLSAlert(rawValue: GNUTLS_A_USER_CANCELED.rawValue)

    /// GnuTLS's name for it, e.g. `Decrypt error`.
    public var name: String {
        gnutls_alert_get_name(gnutls_alert_description_t(rawValue)).map { String(cString: $0) } ?? "alert \(rawValue)"
    }
}
