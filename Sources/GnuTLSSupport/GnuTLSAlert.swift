internal import CGnuTLS

/// A TLS alert description (RFC 8446, section 6), by GnuTLS's number.
public struct GnuTLSAlert: Sendable, Hashable {
    /// The alert's number (`gnutls_alert_description_t`).
    public let rawValue: UInt32
    /// The alert numbered `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// 51: a handshake signature or, for PSK, a binder did not verify.
    public static let decryptError = GnuTLSAlert(rawValue: GNUTLS_A_DECRYPT_ERROR.rawValue)
    /// 115: the server holds no key under the client's PSK identity.
    public static let unknownPSKIdentity = GnuTLSAlert(rawValue: GNUTLS_A_UNKNOWN_PSK_IDENTITY.rawValue)
    /// 20: a record did not decrypt.
    public static let badRecordMAC = GnuTLSAlert(rawValue: GNUTLS_A_BAD_RECORD_MAC.rawValue)
    /// 90: the peer gave up the handshake.
    public static let userCanceled = GnuTLSAlert(rawValue: GNUTLS_A_USER_CANCELED.rawValue)

    /// An alert by its number on the wire (QUIC carries it in CRYPTO_ERROR codes).
    public init(_ number: UInt8) { self.init(rawValue: UInt32(number)) }

    /// GnuTLS's sentence for it, e.g. `Decrypt error`.
    public var name: String {
        gnutls_alert_get_name(gnutls_alert_description_t(rawValue)).map { String(cString: $0) } ?? "alert \(rawValue)"
    }

    /// Its RFC 8446 name in words, e.g. `bad certificate`, `unknown CA`: GnuTLS's
    /// symbol (`GNUTLS_A_UNKNOWN_CA`) without the prefix, lowercase but for acronyms;
    /// `unknown alert` for a number GnuTLS does not know.
    public var specName: String {
        guard let symbol = gnutls_alert_get_strname(gnutls_alert_description_t(rawValue)).map({ String(cString: $0) }) else {
            return "unknown alert"
        }
        let words = symbol.dropFirst(symbol.hasPrefix("GNUTLS_A_") ? 9 : 0).split(separator: "_")
        return words.map { Self.acronyms.contains(String($0)) ? String($0) : $0.lowercased() }.joined(separator: " ")
    }

    private static let acronyms: Set<String> = ["CA", "MAC", "PSK", "SRP"]
}
