internal import CGnuTLS

#if canImport(Glibc)
    import Glibc
#endif

/// One TLS session, client or server. Owns the `gnutls_session_t` (and the C copies
/// GnuTLS keeps pointers to) and frees them in `deinit`; keeps its credentials alive.
///
/// Every session is made with `GNUTLS_NO_SIGNAL`: GnuTLS writes with MSG_NOSIGNAL, so
/// writing to a peer that hung up is an error (EPIPE), not a SIGPIPE that ends a
/// process which did not ignore it.
///
/// The transport is a socket (`setTransport(fd:)`), blocking or not, or a library that
/// moves the handshake's bytes itself (QUIC: `handle`).
public final class GnuTLSSession: @unchecked Sendable {
    // @unchecked: owns a gnutls_session_t; GnuTLS allows one thread sending while another receives, and each owner serialises its senders and its receivers.

    public enum Role: Sendable { case client, server }
    public let role: Role
    /// The `gnutls_session_t`, for a library that drives the session itself
    /// (ngtcp2_crypto_gnutls). Such a library may take the session's user pointer
    /// (`lendUserPointer`); only a PSK server session uses it here.
    public let handle: OpaquePointer
    let credentials: GnuTLSCredentials
    /// GnuTLS keeps the verification name's pointer without copying it: a C copy that
    /// lives as long as the session (a Swift string's temporary buffer would dangle and
    /// verification would fail with "name does not match").
    private var verifyName: UnsafeMutablePointer<CChar>?
    /// A PSK server's key record, reached from GnuTLS's key callback.
    private let pskServer: PSKServerLookup?
    /// What GnuTLS keeps pointers to for resumption (a ticket key, an anti-replay
    /// context): alive as long as the session.
    var retained: [AnyObject] = []

    /// A session with `credentials` and their priorities.
    /// - Parameter forQUIC: ngtcp2 carries the handshake: early data allowed, and no
    ///   EndOfEarlyData message (RFC 9001, section 8.3).
    /// - Parameter earlyData: with `forQUIC`, whether 0-RTT early data may be used (a
    ///   client that resumes without wanting 0-RTT passes false, so it does not offer it).
    /// - Parameter sendsTicketsItself: server only: GnuTLS does not send session tickets
    ///   when the handshake ends; the owner calls `sendSessionTicket()` when it suits
    ///   (QUIC: once ngtcp2 reports the handshake completed, as ngtcp2's examples do).
    public init(
        _ role: Role, credentials: GnuTLSCredentials, forQUIC: Bool = false, earlyData: Bool = true,
        sendsTicketsItself: Bool = false
    ) throws(GnuTLSError) {
        var flags = UInt32(role == .client ? GNUTLS_CLIENT.rawValue : GNUTLS_SERVER.rawValue) | UInt32(GNUTLS_NO_SIGNAL.rawValue)
        if forQUIC { flags |= UInt32(GNUTLS_NO_END_OF_EARLY_DATA.rawValue) }
        if forQUIC && earlyData { flags |= UInt32(GNUTLS_ENABLE_EARLY_DATA.rawValue) }
        if sendsTicketsItself { flags |= UInt32(GNUTLS_NO_AUTO_SEND_TICKET.rawValue) }
        var s: gnutls_session_t?
        try GnuTLSError.check(gnutls_init(&s, flags), "gnutls_init")
        handle = s!
        self.role = role
        self.credentials = credentials
        if role == .server, let key = credentials.pskServerKey {
            pskServer = PSKServerLookup(key: key, identity: credentials.pskServerIdentity)
        } else {
            pskServer = nil
        }
        if let pskServer { gnutls_session_set_ptr(handle, pskServer.record) }
        try credentials.apply(to: handle)
    }

    deinit {
        gnutls_deinit(handle)
        free(verifyName)
    }

    /// Reads and writes the TLS records on the connected socket `fd`.
    public func setTransport(fd: Int32) {
        pb_tls_transport_set_fd(handle, fd)
    }

    /// Gives the session's user pointer (`gnutls_session_set_ptr`) to the library that
    /// drives the session: ngtcp2_crypto_gnutls finds its connection there. A PSK server
    /// session keeps its own (its key lookup reads it), so it cannot lend it.
    public func lendUserPointer(_ pointer: UnsafeMutableRawPointer) {
        precondition(pskServer == nil, "a PSK server session's user pointer is its key lookup's")
        gnutls_session_set_ptr(handle, pointer)
    }

    /// Client: the server's certificate must chain to the trusted CA and cover `name`
    /// (a DNS name, also sent as SNI, or an IP address, which SNI must not carry: RFC 6066).
    public func verifyServer(named name: String) throws(GnuTLSError) {
        if !Self.isIPAddress(name) {
            try GnuTLSError.check(gnutls_server_name_set(handle, GNUTLS_NAME_DNS, name, name.utf8.count), "setting the server name \(name)")
        }
        free(verifyName)
        verifyName = strdup(name)
        gnutls_session_set_verify_cert(handle, verifyName, 0)
    }

    /// Server: the client must present a certificate that chains to the trusted CA.
    public func requireClientCertificate() {
        gnutls_certificate_server_set_request(handle, GNUTLS_CERT_REQUIRE)
        gnutls_session_set_verify_cert(handle, nil, 0)
    }

    /// Offers (client) or accepts (server) only the application protocol `name`: a peer
    /// that speaks another is refused during the handshake (alert 120).
    public func requireALPN(_ name: String) throws(GnuTLSError) {
        var bytes = Array(name.utf8)
        let r = bytes.withUnsafeMutableBufferPointer { b in
            var datum = gnutls_datum_t(data: b.baseAddress, size: UInt32(b.count))
            return gnutls_alpn_set_protocols(handle, &datum, 1, UInt32(GNUTLS_ALPN_MANDATORY.rawValue))
        }
        try GnuTLSError.check(r, "setting the application protocol \(name)")
    }

    static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }

    /// What the PSK server's key callback did during the handshake (`.none` otherwise).
    public var pskLookup: PSKLookup { pskServer?.outcome ?? .none }
}
