internal import CGnuTLS
import PeerBenchPlugin

extension GnuTLSSession {
    /// SHA-256 of the certificate the peer presented (its DER), nil without one.
    public func peerCertificateSHA256() -> [UInt8]? {
        var count: UInt32 = 0
        guard let chain = gnutls_certificate_get_peers(handle, &count), count > 0 else { return nil }
        return try? SHA256.digest(UnsafeRawBufferPointer(start: chain[0].data, count: Int(chain[0].size)))
    }

    /// After the handshake: throws unless the peer's certificate is the `pinned` one
    /// (`CertificatePin`: serve's own identity). `who` names this side (`tls client`).
    public func checkPeerCertificate(pinned: [UInt8], who: String) throws {
        try CertificatePin.check(presented: peerCertificateSHA256(), pinned: pinned, who: who)
    }

    /// Why the peer's certificate did not verify (empty when it did).
    public var verifyStatus: CertificateStatus { CertificateStatus(rawValue: gnutls_session_get_verify_cert_status(handle)) }

    /// The last alert the peer sent (after `.fatalAlertReceived`).
    public var lastAlert: GnuTLSAlert { GnuTLSAlert(rawValue: gnutls_alert_get(handle).rawValue) }

    /// Sends a fatal `alert`; best effort.
    public func sendFatalAlert(_ alert: GnuTLSAlert) {
        _ = gnutls_alert_send(handle, GNUTLS_AL_FATAL, gnutls_alert_description_t(alert.rawValue))
    }

    /// Sends the alert GnuTLS deems right for `error` (a failed handshake); best effort.
    public func sendAlert(for error: GnuTLSError) {
        _ = gnutls_alert_send_appropriate(handle, error.code.rawValue)
    }

    /// Server: the PSK identity the client named (after the handshake).
    public var pskClientIdentity: String? {
        gnutls_psk_server_get_username(handle).map { String(cString: $0) }
    }
}
