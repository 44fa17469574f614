import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

extension TLSPSKSession {
    /// Runs the handshake until it completes or `deadline` passes. The socket is
    /// non-blocking and every wait is a poll bounded by the deadline, so neither a
    /// silent peer nor one dribbling a byte at a time can hold the handshake longer.
    func handshake(socket: Socket, deadline: ChannelDeadline) throws(ControlChannelError) {
        while true {
            let result: Result<Void, GnuTLSError>
            do { result = try socket.withDescriptor("gnutls_handshake") { _ in Result { () throws(GnuTLSError) in try session.handshake() } } } catch
            { throw .closed }
            switch result {
            case .success: return
            case .failure(let error) where error.code == .again:
                try Self.waitReady(socket, writing: session.isWaitingToWrite, deadline: deadline)
            case .failure(let error):
                throw classify(error)
            }
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
    private func classify(_ error: GnuTLSError) -> ControlChannelError {
        switch role {
        case .client:
            // The server answers a binder it cannot verify (another key) or an identity
            // it does not know with an alert.
            if error.code == .fatalAlertReceived {
                let alert = session.lastAlert
                if Self.authenticationAlerts.contains(alert) { return .authenticationFailed }
                // serve's refusal before any handshake (`ServeRefusal`): busy, try again.
                if alert == .userCanceled { return .busy }
                return .failed("TLS handshake failed: the server sent the alert \"\(alert.name)\"")
            }
        case .server:
            // The client offered a PSK (the key callback ran) and the handshake still
            // failed: its identity or its binder, i.e. its key, is not ours. One alert
            // for both, so a prober learns nothing about which identity exists.
            let lookup = session.pskLookup
            let binderFailed = lookup == .keyGiven && (error.code == .receivedIllegalParameter || error.code == .decryptionFailed)
            if lookup == .unknownIdentity || binderFailed {
                session.sendFatalAlert(.decryptError)
                return .authenticationFailed
            }
            // A TLS client that offered no (EC)DHE-PSK hears why; garbage gets nothing useful.
            if !error.isTransportFailure { session.sendAlert(for: error) }
        }
        if error.isTransportFailure { return .failed("TLS handshake failed: the peer closed the connection") }
        return .failed("TLS handshake failed: \(error.message)")
    }

    /// Alerts a PeerBench server sends (decrypt_error) or another TLS 1.3 PSK server may
    /// send when the client's key or identity is not its own.
    static let authenticationAlerts: [GnuTLSAlert] = [.decryptError, .unknownPSKIdentity, .badRecordMAC]
}
