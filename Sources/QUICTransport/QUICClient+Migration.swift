import CNgtcp2
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `migrate` for quic (docs/protocol/quic.md, section 4d): when nothing has come from the
/// server for the policy's silence while data is in flight, the path is judged dead and
/// the same connection moves to a new UDP socket (a new local port, the same server
/// address), with no new handshake: ngtcp2 takes a spare connection ID of the server's,
/// validates the new path and switches to it once the server answered there; the
/// server, which routes by connection ID, follows. Every stream carries on where it
/// was, so each message arrives once.
extension QUICClient {
    /// One event-loop turn's look at the path (`pump`, after the service pass): starts a
    /// migration when the path is dead, and settles one whose validation has ended.
    /// Returns when to look again (nil: nothing in flight, or `migrate` off).
    func watchPath(_ connection: QUICConnection) throws -> UInt64? {
        guard var watch = migration.pathWatch, let confirmed = connection.handshakeConfirmedAt, !connection.isFinished else { return nil }
        defer { migration.pathWatch = watch }
        let now = MonotonicClock.now()
        if let probe = migration.probing {
            return settle(probe, on: connection, watch: &watch, now: now)
        }
        noteProgress(connection)
        let stats = connection.stats
        let sample = PathWatch.Sample(
            now: now, bytesInFlight: stats.bytes_in_flight,
            lastProgressAt: max(connection.lastReadAt, connection.lastStreamAckAt, confirmed),
            smoothedRTT: stats.smoothed_rtt, rttVariance: stats.rttvar)
        guard watch.isDead(sample) else { return watch.deadline(sample) }
        let silentSince = watch.silentSince(sample) ?? now
        watch.restart(at: now)
        let made = migration.events.filter { $0.migratedAtNanos >= confirmed }.count + migration.failed
        guard made < MigrationPolicy.maxMigrations else { return nil }
        if let probe = try openProbe(connection, silentSince: silentSince, now: now) {
            migration.probing = probe
            // Turn at once: the next service pass sends the PATH_CHALLENGE on the new path.
            return now
        }
        return watch.deadline(sample)
    }

    /// A new socket connected to the server, and ngtcp2 validating the path from it; nil
    /// when ngtcp2 cannot migrate now (no spare connection ID from the server yet): the
    /// path gets one more silence before the next try.
    private func openProbe(_ connection: QUICConnection, silentSince: UInt64, now: UInt64) throws -> MigrationProbe? {
        let fresh = try UDPChannel(family: server.family, serviceClass: serviceClass, waker: channel.waker)
        try fresh.socket.connect(server)
        let local = try SockAddrBox(fresh.socket.localAddress())
        guard connection.startMigration(to: local, now: now) == 0 else { return nil }
        cancellation.register(fresh.socket)
        return MigrationProbe(channel: fresh, local: local, startedAt: now, silentSince: silentSince)
    }

    /// The migration's validation, once ngtcp2 reports it: answered on the new path, the
    /// connection (which ngtcp2 moved) reads and sends on the new socket and the old one
    /// closes; not answered (every path dead, say), the new socket closes and the old
    /// path goes on with its own congestion state. Either way the next judgement waits a
    /// silence twice as long. Returns when to look again.
    private func settle(_ probe: MigrationProbe, on connection: QUICConnection, watch: inout PathWatch, now: UInt64) -> UInt64? {
        guard let v = connection.lastPathValidation, v.at >= probe.startedAt else { return nil }
        migration.probing = nil
        watch.moved(at: now)
        if v.succeeded {
            adopt(probe, on: connection, now: now)
            migration.events.append(
                MigrationEvent(
                    silentSinceNanos: probe.silentSince, migratedAtNanos: probe.startedAt,
                    validatedAtNanos: v.at))
            noteProgress(connection)
        } else {
            cancellation.unregister(probe.channel.socket)
            migration.failed += 1
        }
        return now
    }

    /// The probe's path works: ngtcp2 already moved onto it, but after a validated move it
    /// retransmits what the dead path lost only as its timers (started afresh, from a
    /// 333 ms RTT) find it lost, while an immediate move hands it all to the new path at
    /// once. So, the new port proved to work, the connection moves at once to one more new
    /// socket (one more of the server's spare connection IDs); without a spare one it
    /// stays on the probe's. The old sockets close with their channels.
    private func adopt(_ probe: MigrationProbe, on connection: QUICConnection, now: UInt64) {
        cancellation.unregister(channel.socket)
        if let fresh = try? UDPChannel(family: server.family, serviceClass: serviceClass, waker: channel.waker),
            (try? fresh.socket.connect(server)) != nil, let local = try? SockAddrBox(fresh.socket.localAddress()),
            connection.moveNow(to: local, now: now) == 0
        {
            cancellation.register(fresh.socket)
            cancellation.unregister(probe.channel.socket)
            channel = fresh
        } else {
            connection.adoptProbePath()
            channel = probe.channel
        }
    }

    /// Fills in, for every migration, the first stream data the server acknowledged
    /// once the connection was on the new path (back to work; for one a later migration
    /// superseded, the same moment as for that one).
    private func noteProgress(_ connection: QUICConnection) {
        let ack = connection.lastStreamAckAt
        for i in migration.events.indices
        where migration.events[i].backAtNanos == nil
            && ack > (migration.events[i].validatedAtNanos ?? migration.events[i].migratedAtNanos)
        {
            migration.events[i].backAtNanos = ack
        }
    }

    /// A new connection (a reconnect's) starts with a fresh judge of its path; a
    /// migration the lost connection was validating is dropped with it.
    func forgetPathWatch(now: UInt64) {
        if let probe = migration.probing {
            cancellation.unregister(probe.channel.socket)
            migration.probing = nil
        }
        migration.pathWatch = config.migrate.map { PathWatch(policy: $0, now: now) }
    }

    /// The cell's migrations, their progress brought up to date on `connection` (the one
    /// the workload ended on); a migration still being validated is dropped uncounted.
    func migrations(settledOn connection: QUICConnection) -> [MigrationEvent] {
        if let probe = migration.probing {
            cancellation.unregister(probe.channel.socket)
            migration.probing = nil
        }
        noteProgress(connection)
        return migration.events
    }

    /// `extra.quic.migrations`: one object per migration, times in ms on the client's
    /// clock: `detect_ms` (the silence before moving), `validated_ms` and `back_ms` (from
    /// the move's start to the server's PATH_RESPONSE on the new path, and to its first
    /// acknowledgement of stream data after that; null when none came).
    static func migrationDetail(_ events: [MigrationEvent]) -> JSONValue {
        func ms(_ from: UInt64, _ to: UInt64?) -> JSONValue {
            to.map { .number(Double($0 >= from ? $0 - from : 0) / 1e6) } ?? .null
        }
        return .array(
            events.map { e in
                var o = JSONObject()
                o["detect_ms"] = ms(e.silentSinceNanos, e.migratedAtNanos)
                o["validated_ms"] = ms(e.migratedAtNanos, e.validatedAtNanos)
                o["back_ms"] = ms(e.migratedAtNanos, e.backAtNanos)
                return .object(o)
            })
    }
}
