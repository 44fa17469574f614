internal import CGnuTLS

extension GnuTLSSession {
    /// What a handshake agreed on, by GnuTLS's names (nil where it has none).
    public struct Negotiated: Sendable, Equatable {
        public var version: String?
        public var keyExchange: String?
        public var cipher: String?
        public var group: String?
        /// The application protocol (ALPN), when one was agreed.
        public var alpn: String?
        /// GnuTLS's one-line summary, e.g. `(TLS1.3)-(ECDHE-SECP256R1)-(...)`.
        public var summary: String?
        /// The version is TLS 1.3 (by GnuTLS's enum, not its name).
        public var isTLS13: Bool
        /// The key exchange is ECDHE-PSK or DHE-PSK (by GnuTLS's enum), never plain PSK.
        public var isDiffieHellmanPSK: Bool
    }

    public var negotiated: Negotiated {
        func name(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        var datum = gnutls_datum_t()
        var alpn: String?
        if gnutls_alpn_get_selected_protocol(handle, &datum) == 0, let d = datum.data {
            alpn = String(decoding: UnsafeBufferPointer(start: d, count: Int(datum.size)), as: UTF8.self)
        }
        var summary: String?
        if let desc = gnutls_session_get_desc(handle) {
            summary = String(cString: desc)
            pb_tls_free(desc)
        }
        let version = gnutls_protocol_get_version(handle), kx = gnutls_kx_get(handle)
        return Negotiated(
            version: name(gnutls_protocol_get_name(version)), keyExchange: name(gnutls_kx_get_name(kx)),
            cipher: name(gnutls_cipher_get_name(gnutls_cipher_get(handle))),
            group: name(gnutls_group_get_name(gnutls_group_get(handle))),
            alpn: alpn, summary: summary, isTLS13: version == GNUTLS_TLS1_3,
            isDiffieHellmanPSK: kx == GNUTLS_KX_ECDHE_PSK || kx == GNUTLS_KX_DHE_PSK)
    }
}
