internal import CGnuTLS

#if canImport(Glibc)
    import Glibc
#endif

extension GnuTLSSession {
    /// Runs the handshake on the transport. On a blocking socket it returns when done;
    /// on a non-blocking one it throws `.again` until then (`isWaitingToWrite` says which
    /// way to wait).
    /// - Throws: `GnuTLSError`: `.again`, `.certificateVerification` (`verifyStatus`),
    ///   `.fatalAlertReceived` (`lastAlert`), anything else GnuTLS reports.
    public func handshake() throws(GnuTLSError) {
        while true {
            let r = gnutls_handshake(handle)
            if r == GNUTLS_E_INTERRUPTED { continue }
            try GnuTLSError.check(r, "the TLS handshake")
            return
        }
    }

    /// Sends up to `bytes.count` bytes as records; returns how many were taken.
    /// After `.again`, call it again with the same bytes, as GnuTLS requires.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(GnuTLSError) -> Int {
        while true {
            let n = gnutls_record_send(handle, bytes.baseAddress, bytes.count)
            if n == Int(GNUTLS_E_INTERRUPTED) { continue }
            if n < 0 { throw GnuTLSError("gnutls_record_send", code: Int32(n)) }
            return n
        }
    }

    /// At most one record's plaintext into `buffer`; 0 at the end of the stream: the
    /// peer's close_notify, or a connection that closed without one (its users frame
    /// their data, so a cut shows as an incomplete frame).
    /// A TLS 1.3 post-handshake message (a NewSessionTicket, a KeyUpdate) is taken in
    /// on the way and reading goes on; GnuTLS reports one as `GNUTLS_E_AGAIN` although
    /// the socket did not time out, which errno (set by the socket's own EAGAIN only)
    /// tells apart.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(GnuTLSError) -> Int {
        while true {
            errno = 0
            let n = gnutls_record_recv(handle, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if n == Int(GNUTLS_E_INTERRUPTED) { continue }
            if n == Int(GNUTLS_E_AGAIN) && errno != EAGAIN && errno != EWOULDBLOCK { continue }
            if n == Int(GNUTLS_E_PREMATURE_TERMINATION) { return 0 }
            throw GnuTLSError("gnutls_record_recv", code: Int32(n))
        }
    }

    /// After `.again` on a non-blocking socket: true when GnuTLS waits to write, false to read.
    public var isWaitingToWrite: Bool { gnutls_record_get_direction(handle) == 1 }

    /// Sends close_notify (this side is done writing); best effort.
    public func bye() {
        _ = gnutls_bye(handle, GNUTLS_SHUT_WR)
    }
}
