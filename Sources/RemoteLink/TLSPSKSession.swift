import GnuTLSSupport

/// The control channel's cryptography: one TLS 1.3 session authenticated by an
/// external pre-shared key, over a connected TCP socket.
///
/// Only the (EC)DHE-PSK key exchanges are allowed (`priority`): every session gets a
/// fresh Diffie-Hellman secret, so a key that leaks later does not decrypt recorded
/// sessions. Plain PSK (psk_ke) is not offered and not accepted.
struct TLSPSKSession: Sendable {
    /// TLS 1.3 only; key exchange only ECDHE-PSK or DHE-PSK (in TLS 1.3 both mean
    /// psk_dhe_ke with the enabled groups).
    static let priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+ECDHE-PSK:+DHE-PSK"

    let session: GnuTLSSession
    var role: GnuTLSSession.Role { session.role }

    /// A session on the socket `fd`: the client names `key`'s identity and proves it
    /// holds the key; the server accepts only that identity with that key.
    init(role: GnuTLSSession.Role, fd: Int32, key: PreSharedKey, priority: String = TLSPSKSession.priority) throws(ControlChannelError) {
        do throws(GnuTLSError) {
            let credentials =
                role == .client
                ? try GnuTLSCredentials(pskIdentity: key.identity, key: key.bytes, priority: priority)
                : try GnuTLSCredentials(pskServerKey: key.bytes, identity: key.identity, priority: priority)
            session = try GnuTLSSession(role, credentials: credentials)
        } catch {
            throw .failed("\(error)")
        }
        session.setTransport(fd: fd)
    }

    /// The negotiated protocol version, key exchange, cipher and group, by GnuTLS's names.
    var negotiated: ControlChannel.Negotiated {
        let n = session.negotiated
        return ControlChannel.Negotiated(
            version: n.version ?? "unknown", keyExchange: n.keyExchange ?? "unknown",
            cipher: n.cipher ?? "unknown", group: n.group ?? "unknown",
            isTLS13: n.isTLS13, isDiffieHellmanPSK: n.isDiffieHellmanPSK)
    }

    /// The identity the client named (server side, after the handshake).
    var clientIdentity: String? { session.pskClientIdentity }
}
