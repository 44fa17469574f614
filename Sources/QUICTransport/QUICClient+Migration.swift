#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import PeerBenchPlugin

/// `migrate` for quic (docs/protocol/quic.md, section 4d): when nothing has come from the
/// server for the policy's silence while data is in flight, the path is judged
/// dead and the same connection moves to a new UDP socket (a new local port, the same
/// server address), with no new handshake: ngtcp2 switches to a spare connection ID of
/// the server's and validates the new path, and the server, which routes by connection
/// ID, follows. Every stream carries on where it was, so each message arrives once.
extension QUICClient {
    /// One event-loop turn's look at the path (`pump`, after the service pass): migrates
    /// when it is dead. Returns when to look again (nil: nothing in flight, or `migrate` off).
    func watchPath(_ connection: QUICConnection) throws -> UInt64? {
        guard var watch = pathWatch, let confirmed = connection.handshakeConfirmedAt, !connection.isFinished else { return nil }
        defer { pathWatch = watch }
        noteProgress(connection)
        let stats = connection.stats
        let sample = PathWatch.Sample(now: MonotonicClock.now(), bytesInFlight: stats.bytes_in_flight,
                                      lastProgressAt: max(connection.lastReadAt, connection.lastStreamAckAt, confirmed),
                                      smoothedRTT: stats.smoothed_rtt, rttVariance: stats.rttvar)
        guard watch.isDead(sample) else { return watch.deadline(sample) }
        let silentSince = watch.silentSince(sample) ?? sample.now
        watch.restart(at: sample.now)
        guard migrationEvents.filter({ $0.migratedAtNanos >= confirmed }).count < MigrationPolicy.maxMigrations else {
            return nil
        }
        if try moveToNewSocket(connection, now: sample.now) {
            watch.moved(at: sample.now)
            migrationEvents.append(MigrationEvent(silentSinceNanos: silentSince, migratedAtNanos: sample.now))
            // Turn at once: the next service pass writes on the new path.
            return sample.now
        }
        return watch.deadline(sample)
    }

    /// A new socket connected to the server, the connection moved onto it, the old one
    /// closed. False when ngtcp2 cannot migrate now (no spare connection ID from the
    /// server yet): the path gets one more silence before the next try.
    private func moveToNewSocket(_ connection: QUICConnection, now: UInt64) throws -> Bool {
        let fresh = try UDPChannel(family: server.family, serviceClass: serviceClass, waker: channel.waker)
        try fresh.socket.connect(server)
        let rv = connection.migrate(to: try SockAddrBox(fresh.socket.localAddress()), now: now)
        guard rv == 0 else { return false }
        cancellation.register(fresh.socket)
        cancellation.unregister(channel.socket)
        // The old socket closes with its channel: whatever still comes to the old port is
        // the dead path's, and the server sends to the new one once it sees it.
        channel = fresh
        return true
    }

    /// Fills in when the last migration's path was validated, and for every migration
    /// the first stream data the server acknowledged after it (back to work; for one a
    /// later migration superseded, the same moment as for that one).
    private func noteProgress(_ connection: QUICConnection) {
        guard let lastIndex = migrationEvents.indices.last else { return }
        if migrationEvents[lastIndex].validatedAtNanos == nil, let v = connection.lastPathValidation, v.succeeded,
           v.at >= migrationEvents[lastIndex].migratedAtNanos {
            migrationEvents[lastIndex].validatedAtNanos = v.at
        }
        let ack = connection.lastStreamAckAt
        for i in migrationEvents.indices where migrationEvents[i].backAtNanos == nil && ack > migrationEvents[i].migratedAtNanos {
            migrationEvents[i].backAtNanos = ack
        }
    }

    /// The cell's migrations, the last one's progress brought up to date on `connection`
    /// (the one the workload ended on).
    func migrations(settledOn connection: QUICConnection) -> [MigrationEvent] {
        noteProgress(connection)
        return migrationEvents
    }

    /// `extra.quic.migrations`: one object per migration, times in ms on the client's
    /// clock: `detect_ms` (the silence before moving), `validated_ms` and `back_ms` (from
    /// moving to the server's PATH_RESPONSE, and to its first acknowledgement of stream
    /// data on the new path; null when none came).
    static func migrationDetail(_ events: [MigrationEvent]) -> JSONValue {
        func ms(_ from: UInt64, _ to: UInt64?) -> JSONValue {
            to.map { .number(Double($0 >= from ? $0 - from : 0) / 1e6) } ?? .null
        }
        return .array(events.map { e in
            var o = JSONObject()
            o["detect_ms"] = ms(e.silentSinceNanos, e.migratedAtNanos)
            o["validated_ms"] = ms(e.migratedAtNanos, e.validatedAtNanos)
            o["back_ms"] = ms(e.migratedAtNanos, e.backAtNanos)
            return .object(o)
        })
    }
}
