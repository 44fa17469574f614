import CNgtcp2

/// Connection migration (client side, RFC 9000 section 9): the same connection carries
/// on from a new local address once the old path stopped working.
extension QUICConnection {
    /// Moves the connection to `local` (a new socket's address; the peer's address stays):
    /// ngtcp2 switches at once to a spare connection ID of the peer's and validates the
    /// new path as it goes (`ngtcp2_conn_initiate_immediate_migration`), since the old
    /// path is known dead and waiting for the validation on it would only cost time.
    /// Later reads arrive on the new path. Returns ngtcp2's error code (0 = migrating):
    /// `NGTCP2_ERR_CONN_ID_BLOCKED` when the peer has issued no spare connection ID,
    /// `NGTCP2_ERR_INVALID_STATE` before the handshake is confirmed.
    func migrate(to local: SockAddrBox, now: UInt64) -> Int32 {
        let next = UnsafeMutablePointer<ngtcp2_path_storage>.allocate(capacity: 1)
        defer { next.deallocate() }
        let remote = path.pointee.path.remote
        local.withPointer { l, ll in ngtcp2_path_storage_init(next, l, ll, remote.addr, remote.addrlen, nil) }
        let rv = ngtcp2_conn_initiate_immediate_migration(conn, next.pathPointer, now)
        if rv == 0 { ngtcp2_path_copy(path.pathPointer, next.pathPointer) }
        return rv
    }
}
