#if canImport(Glibc)
import Glibc
#endif
import CGnuTLS
import PeerBenchPlugin

extension TLSPSKSession {
    /// Runs the handshake until it completes or `deadline` passes. The socket is
    /// non-blocking and every wait is a poll bounded by the deadline, so neither a
    /// silent peer nor one dribbling a byte at a time can hold the handshake longer.
    func handshake(socket: Socket, deadline: ChannelDeadline) throws(ControlChannelError) {
        while true {
            let r: Int32
            do { r = try socket.withDescriptor("gnutls_handshake") { _ in gnutls_handshake(session) } } catch { throw .closed }
            if r == 0 { return }
            if r == GNUTLS_E_INTERRUPTED || r == GNUTLS_E_AGAIN {
                try Self.waitReady(socket, writing: gnutls_record_get_direction(session) == 1, deadline: deadline)
                continue
            }
            throw classify(r)
        }
    }

    /// Waits until the socket can be read (or written) without blocking; `.timedOut`
    /// when `deadline` passes first, `.closed` when the socket was closed here.
    static func waitReady(_ socket: Socket, writing: Bool, deadline: ChannelDeadline) throws(ControlChannelError) {
        while true {
            let remaining = deadline.remainingNanos
            guard remaining > 0 else { throw .timedOut }
            // Round up: a 0 ms poll would spin through the last millisecond.
            let ms = Int32(clamping: (remaining + 999_999) / 1_000_000)
            let ready: Int32
            do {
                ready = try socket.withDescriptor("poll") { fd throws(SystemError) in
                    var p = pollfd(fd: fd, events: Int16(writing ? POLLOUT : POLLIN), revents: 0)
                    return try syscall("poll") { poll(&p, 1, ms) }
                }
            } catch {
                throw .closed
            }
            if ready > 0 { return }
        }
    }

    /// Names a failed handshake: a wrong key (or identity) as `.authenticationFailed`,
    /// anything else by GnuTLS's message.
    private func classify(_ code: Int32) -> ControlChannelError {
        switch role {
        case .client:
            // The server answers a binder it cannot verify (another key) or an identity
            // it does not know with an alert.
            if code == GNUTLS_E_FATAL_ALERT_RECEIVED {
                let alert = gnutls_alert_get(session)
                if Self.authenticationAlerts.contains(alert) { return .authenticationFailed }
                // serve's refusal before any handshake (`ServeRefusal`): busy, try again.
                if alert == GNUTLS_A_USER_CANCELED { return .busy }
                return .failed("TLS handshake failed: the server sent the alert \"\(Self.alertName(alert))\"")
            }
        case .server:
            // The client offered a PSK (the key callback ran) and the handshake still
            // failed: its identity or its binder, i.e. its key, is not ours. One alert
            // for both, so a prober learns nothing about which identity exists.
            let binderFailed = keyLookup == .keyGiven
                && (code == GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER || code == GNUTLS_E_DECRYPTION_FAILED)
            if keyLookup == .unknownIdentity || binderFailed {
                _ = gnutls_alert_send(session, GNUTLS_AL_FATAL, GNUTLS_A_DECRYPT_ERROR)
                return .authenticationFailed
            }
            // A TLS client that offered no (EC)DHE-PSK hears why; garbage gets nothing useful.
            if code != GNUTLS_E_PREMATURE_TERMINATION && code != GNUTLS_E_PULL_ERROR && code != GNUTLS_E_PUSH_ERROR {
                _ = gnutls_alert_send_appropriate(session, code)
            }
        }
        if code == GNUTLS_E_PREMATURE_TERMINATION || code == GNUTLS_E_PULL_ERROR || code == GNUTLS_E_PUSH_ERROR {
            return .failed("TLS handshake failed: the peer closed the connection")
        }
        return .failed("TLS handshake failed: \(String(cString: gnutls_strerror(code)))")
    }

    /// Alerts a PeerBench server sends (decrypt_error) or another TLS 1.3 PSK server may
    /// send when the client's key or identity is not its own.
    static let authenticationAlerts: [gnutls_alert_description_t] = [
        GNUTLS_A_DECRYPT_ERROR, GNUTLS_A_UNKNOWN_PSK_IDENTITY, GNUTLS_A_BAD_RECORD_MAC,
    ]

    static func alertName(_ alert: gnutls_alert_description_t) -> String {
        gnutls_alert_get_name(alert).map { String(cString: $0) } ?? "alert \(alert.rawValue)"
    }
}
