internal import CGnuTLS

/// TLS 1.3 session resumption (RFC 8446, section 2.2) and 0-RTT early data: a server
/// hands out tickets sealed with its `TLSSessionTicketKey`; a client saves the session
/// (`resumptionData`) and offers it on its next connection (`resume(with:)`).
extension GnuTLSSession {
    /// Server: seal session tickets with `key` and accept tickets sealed with it.
    /// Call before the handshake.
    public func enableSessionTickets(key: TLSSessionTicketKey) throws(GnuTLSError) {
        try GnuTLSError.check(gnutls_session_ticket_enable_server(handle, key.datum), "enabling session tickets")
        retained.append(key)
    }

    /// Server: accept 0-RTT early data of resumed sessions, at most `maxSize` bytes,
    /// each ClientHello once (`antiReplay`). QUIC requires `maxSize` 0xffffffff in the
    /// ticket (RFC 9001, section 4.6.1): QUIC's own flow control bounds early data.
    /// Needs `forQUIC` (or GNUTLS_ENABLE_EARLY_DATA) at init and `enableSessionTickets`.
    public func enableEarlyData(antiReplay: TLSAntiReplay, maxSize: UInt32 = 0xffff_ffff) throws(GnuTLSError) {
        gnutls_anti_replay_enable(handle, antiReplay.handle)
        try GnuTLSError.check(gnutls_record_set_max_early_data_size(handle, Int(maxSize)), "setting the largest early data")
        retained.append(antiReplay)
    }

    /// Server with `sendsTicketsItself`: sends one NewSessionTicket now.
    public func sendSessionTicket() throws(GnuTLSError) {
        try GnuTLSError.check(gnutls_session_ticket_send(handle, 1, 0), "sending a session ticket")
    }

    /// Client: offer the saved session `data` in the next handshake. Call before it.
    public func resume(with data: ResumptionData) throws(GnuTLSError) {
        let r = data.bytes.withUnsafeBytes { gnutls_session_set_data(handle, $0.baseAddress, $0.count) }
        try GnuTLSError.check(r, "setting the saved session (\(data.bytes.count) bytes)")
    }

    /// Client: the session as it stands (after the handshake and, in TLS 1.3, after a
    /// NewSessionTicket arrived: `hasReceivedSessionTicket`), to resume it later.
    public func resumptionData() throws(GnuTLSError) -> ResumptionData {
        var datum = gnutls_datum_t()
        try GnuTLSError.check(gnutls_session_get_data2(handle, &datum), "saving the session")
        defer { if let d = datum.data { pb_tls_free(d) } }
        guard let d = datum.data else { return ResumptionData(bytes: []) }
        return ResumptionData(bytes: Array(UnsafeBufferPointer(start: d, count: Int(datum.size))))
    }

    /// Server: this handshake sent our certificate (a resumed TLS 1.3 handshake sends
    /// none: the ticket stands in for it). The client cannot tell from its side, since
    /// GnuTLS restores the peer's certificate from the saved session.
    public var sentCertificate: Bool { gnutls_certificate_get_ours(handle) != nil }

    /// The handshake resumed an earlier session (either side; GnuTLS's word for it).
    public var isResumed: Bool { gnutls_session_is_resumed(handle) != 0 }

    /// Client: a NewSessionTicket arrived from the server (TLS 1.3 sends it after the
    /// handshake, so it is only seen once the client has read past the handshake).
    public var hasReceivedSessionTicket: Bool { flags & UInt32(GNUTLS_SFLAGS_SESSION_TICKET.rawValue) != 0 }

    /// The 0-RTT early data was accepted (server: it received it; client: the server
    /// said so in EncryptedExtensions). Meaningful once the handshake is done.
    public var isEarlyDataAccepted: Bool { flags & UInt32(GNUTLS_SFLAGS_EARLY_DATA.rawValue) != 0 }

    private var flags: UInt32 { UInt32(gnutls_session_get_flags(handle)) }
}
