internal import CGnuTLS

/// A server's TLS 1.3 session-ticket key (`gnutls_session_ticket_key_generate`): it
/// encrypts the tickets the server hands out and decrypts the ones clients bring back,
/// so every session of one server that should resume another's must share one key.
/// Owns the key's memory; wiped and freed in `deinit`. Never leaves the process.
public final class TLSSessionTicketKey: @unchecked Sendable {
    // @unchecked: holds GnuTLS memory that nothing changes after init; sessions only read it.

    /// The key as GnuTLS wants it (points at memory from gnutls_malloc).
    let datum: UnsafeMutablePointer<gnutls_datum_t>

    /// A fresh random key.
    public init() throws(GnuTLSError) {
        datum = .allocate(capacity: 1)
        datum.initialize(to: gnutls_datum_t())
        let r = gnutls_session_ticket_key_generate(datum)
        if r < 0 {
            datum.deallocate()
            throw GnuTLSError("generating a session ticket key", code: r)
        }
    }

    deinit {
        if let data = datum.pointee.data {
            // The key does not linger in freed memory.
            data.update(repeating: 0, count: Int(datum.pointee.size))
            pb_tls_free(data)
        }
        datum.deallocate()
    }
}
