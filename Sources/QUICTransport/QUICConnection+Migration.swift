import CNgtcp2

/// Connection migration (client side, RFC 9000 section 9): the same connection carries
/// on from a new local address once the old path stopped working.
extension QUICConnection {
    /// Starts moving the connection to `local` (a new socket's address; the peer's address
    /// stays): ngtcp2 takes a spare connection ID of the peer's and validates the new
    /// path (PATH_CHALLENGE, `ngtcp2_conn_initiate_migration`), and switches to it only
    /// once the peer answered there; until then the old path carries the data. Reads from
    /// the new socket pass `probePath`. Returns ngtcp2's error code (0 = validating):
    /// `NGTCP2_ERR_CONN_ID_BLOCKED` when the peer has issued no spare connection ID,
    /// `NGTCP2_ERR_INVALID_STATE` before the handshake is confirmed.
    ///
    /// Validate first rather than move at once (`ngtcp2_conn_initiate_immediate_migration`):
    /// ngtcp2 0.12 starts a new path's congestion controller and RTT estimate afresh (333
    /// ms), so a move onto a path that does not work either (a whole-link outage) would
    /// leave the connection probing it at ~1 s, 2 s, ... after the link's return, where
    /// the old path's own probe timeouts come sooner. Measured: a 1.5 s outage stalled an
    /// immediately migrated transfer 3.4 s against 1.7-2.2 s without migration.
    func startMigration(to local: SockAddrBox, now: UInt64) -> Int32 {
        let remote = path.pointee.path.remote
        local.withPointer { l, ll in ngtcp2_path_storage_init(probePath, l, ll, remote.addr, remote.addrlen, nil) }
        return ngtcp2_conn_initiate_migration(conn, probePath.pathPointer, now)
    }

    /// Moves the connection to `local` at once (`ngtcp2_conn_initiate_immediate_migration`:
    /// it switches to a spare connection ID and sends everything unacknowledged again on
    /// the new path, validating it as it goes); reads pass the new path from now on.
    /// Returns ngtcp2's error code (0 = moved).
    func moveNow(to local: SockAddrBox, now: UInt64) -> Int32 {
        let next = UnsafeMutablePointer<ngtcp2_path_storage>.allocate(capacity: 1)
        defer { next.deallocate() }
        let remote = path.pointee.path.remote
        local.withPointer { l, ll in ngtcp2_path_storage_init(next, l, ll, remote.addr, remote.addrlen, nil) }
        let rv = ngtcp2_conn_initiate_immediate_migration(conn, next.pathPointer, now)
        if rv == 0 { ngtcp2_path_copy(path.pathPointer, next.pathPointer) }
        return rv
    }

    /// The validation succeeded and ngtcp2 now uses the new path: reads without a path
    /// of their own (the client's one socket) pass it from now on.
    func adoptProbePath() {
        ngtcp2_path_copy(path.pathPointer, probePath.pathPointer)
    }
}
