import CNgtcp2
import GnuTLSSupport
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// The client side of one cell: handshake, probes, bulk phase (or another workload's
/// streams, `QUICClient+Workloads`), close (docs/protocol/quic.md), on one thread with
/// one event loop.
final class QUICClient: QUICConnectionDelegate {
    /// Bulk streams being written at once in `perMessage` mode (the server allows 128 open).
    static let perMessageWindow = 100

    let config: QUICConfiguration
    let server: SocketAddress
    /// The client's UDP socket; a migration (`migrate`) puts a new one in its place.
    var channel: UDPChannel
    /// The connection while the workload runs (nil before the handshake starts and after the close).
    private(set) var connection: QUICConnection?
    let deadline: UInt64
    let cancellation: CellCancellation

    /// Loaded probes (`loadedRttProbes`): PINGs during the bulk phase, their sequence
    /// numbers with the top bit set so they never meet the idle probes' (0, 1, ...).
    static let loadedFlag: UInt64 = 1 << 63
    /// The sequence number of the PING sent as 0-RTT early data with HELLO (`zeroRTT`):
    /// apart from the idle probes' 0, 1, ... and the loaded probes' top bit.
    static let earlyProbeSeq: UInt64 = 1 << 62

    let token: CellToken
    let serviceClass: ServiceClass
    /// The current connection's set-up: handshake, control stream, HELLO, 0-RTT.
    var setup = ConnectionSetup()
    /// What the server said on the control stream (PONGs, REPORT, SERIES, RESUMED).
    var log = ControlStreamLog()
    /// The request, frame and pull streams of a workload beyond the upload (`runWorkload`).
    let workloadStreams = ClientWorkloadStreams()
    /// `resumption`'s saved session and `reconnect`'s attempt slot.
    var resumption: ClientResumption
    /// `migrate`: the path's judge and the migrations.
    var migration: ClientMigration
    /// The app's time per message (`CellContext.appLoop`): probes and bulk messages are
    /// handed to ngtcp2 no faster than one per send cost, PONGs taken one per receive cost.
    var appLoop: AppLoop = .none

    init(
        config: QUICConfiguration, server: SocketAddress, token: CellToken, deadline: UInt64, cancellation: CellCancellation,
        serviceClass: ServiceClass, store: QUICResumptionStore? = nil
    ) throws {
        resumption = ClientResumption(store: store)
        self.serviceClass = serviceClass
        self.config = config
        self.token = token
        self.server = server
        self.deadline = deadline
        self.cancellation = cancellation
        channel = try UDPChannel(family: server.family, serviceClass: serviceClass)
        try channel.socket.connect(server)
        migration = ClientMigration(pathWatch: config.migrate.map { PathWatch(policy: $0, now: MonotonicClock.now()) })
    }

    /// Runs the whole workload and returns the measurement. If it fails after the
    /// connection exists, the server is told with CONNECTION_CLOSE (application
    /// error 2, the reason as text) instead of being left to its idle timeout.
    /// At the cell's deadline it also cancels the cell (`CellCancellation`), as the
    /// runner's deadline does.
    /// `method`: how the idle probes are sent; `askSpan`: the server's hello offers the
    /// receiver's span, so DONE asks for it.
    /// `workload`: what runs after the probes (docs/WORKLOADS.md); the upload by default.
    func run(
        payload: Payload?, probes: Int, seed: UInt64, method: RTTMethod = .pingPong, probeSpacing: UInt64 = 0,
        askSpan: Bool = false, workload spec: WorkloadSpec = .upload
    ) throws -> TransportMeasurement {
        do {
            return try workload(
                spec, payload: payload, probes: probes, seed: seed, method: method, probeSpacing: probeSpacing,
                askSpan: askSpan)
        } catch {
            if let c = connection, !c.isFinished {
                c.close(.application(ApplicationError.aborted, "client gave up: \(error)"), transmit: transmit)
            }
            connection = nil
            if case QUICFailure.deadline = error {
                // We saw the cell's deadline a moment before the runner's own timer:
                // cancel the cell as that timer would (it also stops the server), so the
                // cell is recorded `timeout` whichever of the two noticed first.
                cancellation.cancel()
            }
            throw error
        }
    }

    private func workload(
        _ spec: WorkloadSpec, payload: Payload?, probes: Int, seed: UInt64, method: RTTMethod,
        probeSpacing: UInt64, askSpan: Bool
    ) throws -> TransportMeasurement {
        cancellation.register(channel.socket)
        cancellation.onCancel { [waker = channel.waker] in waker.wake() }
        defer { cancellation.unregister(channel.socket) }

        var m = TransportMeasurement()
        // ngtcp2's controller, as configured on this connection (the record's `congestion_control`).
        m.congestionControl = config.connection.congestionControl.rawValue

        let (first, start) = try handshake()
        m.connectNanos = (first.handshakeCompletedAt ?? start) - start
        log.app = AppReceiveLoop(appLoop)
        if let loop = appLoop.extra { m.extra[AppLoop.extraKey] = loop }
        let control = try idleProbes(probes, method: method, probeSpacing: probeSpacing, on: first, into: &m)

        // Bulk phase: every message is the same immutable block (frame header + body),
        // borrowed by ngtcp2 until acknowledged; memory does not grow with the count.
        let count = payload?.count ?? 0
        let size = payload?.size ?? 0
        let block = MessageBlock(size: size, seed: seed)
        let loadedProbesSent: Int?
        // The connection the bulk phase ended on: the first, or the last re-made one.
        let connection: QUICConnection
        if !spec.isUpload {
            // Another workload (check(workload:) refused reconnect and loaded probes with it).
            try runWorkload(spec, payload: payload, seed: seed, on: first, control: control, into: &m)
            connection = first
            loadedProbesSent = nil
        } else if let policy = config.reconnect, count > 0 {
            connection = try resumableBulk(
                policy, count: count, size: size, block: block, askSpan: askSpan,
                first: first, control: control, into: &m)
            loadedProbesSent = nil
        } else {
            loadedProbesSent = try bulkPhase(
                count: count, size: size, block: block, askSpan: askSpan,
                on: first, stream: control, into: &m)
            connection = first
        }
        guard let r = log.report else { throw QUICFailure.protocolViolation("no REPORT after the bulk phase") }
        if spec.isUpload {
            m.recordUpload(
                Delivery(sentMessages: count, receivedMessages: Int(r.messages), sentBytes: count * size, receivedBytes: Int(r.bytes)),
                series: log.series, receiverSpanNanos: r.spanNanos, expected: Payload(count: count, size: size), transport: "quic")
            // Never hidden: a message the server counted twice over a reconnect.
            if r.messages > UInt64(count) { m.delivery?.duplicated = Int(r.messages) - count }
        }

        m.extra["quic"] = .object(stats(of: connection, first: first, start: start, report: r, loadedProbesSent: loadedProbesSent, into: &m))

        // Clean close: CONNECTION_CLOSE with application NO_ERROR; nothing to wait for.
        connection.close(.application(ApplicationError.noError, ""), transmit: transmit)
        self.connection = nil
        withExtendedLifetime(block) {}
        return m
    }

    /// `extra.quic`: the handshake timings of the connection that carried the end of the
    /// bulk phase, the workload streams' counts, resumption and migrations; sets
    /// `m.resumed` and `m.migrations`.
    private func stats(
        of connection: QUICConnection, first: QUICConnection, start: UInt64, report r: ReportBody,
        loadedProbesSent: Int?, into m: inout TransportMeasurement
    ) -> JSONObject {
        var stats = QUICStats.record(connection, start: connection === first ? start : setup.startedAt, report: r, config: config)
        if let loadedProbesSent { stats["loaded_probes_sent"] = JSONValue(loadedProbesSent) }
        if config.migrate != nil {
            // `migrate`: the connection's moves, each brought up to date (sets `m.migrations`).
            m.migrations = migrations(settledOn: connection)
            stats["migrations"] = Self.migrationDetail(m.migrations ?? [])
            stats["migrations_not_validated"] = JSONValue(migration.failed)
        }
        for (k, v) in workloadStreams.extra { stats[k] = v }
        // Time to the first echoed probe: what 0-RTT shortens (the handshake time does not change).
        stats["first_echo_ms"] = log.firstPongAt.map { .number(Double($0 - start) / 1e6) } ?? .null
        if resumption.store != nil {
            stats["resumed"] = .bool(connection.tls.isResumed)
            stats["priming_connect_ms"] = resumption.primingNanos.map { .number(Double($0) / 1e6) } ?? .null
            // With reconnect, `resumableBulk` set it over every connection of the cell.
            if m.resumed == nil { m.resumed = connection.tls.isResumed }
            if config.zeroRTT {
                stats["early_data_accepted"] = .bool(setup.earlyDataAttempted && !setup.earlyDataRejected && connection.tls.isEarlyDataAccepted)
            }
        }
        return stats
    }

    /// From creating the TLS session to the handshake_completed callback; returns the
    /// connection and when the handshake started. Every connection of the client is
    /// made here (measured, separate probe flow, priming; a reconnect too): it resumes
    /// the store's session when there is one, and with `zeroRTT` queues the early data.
    /// `greeting`: the control stream's first frame, `HELLO` (RESUME on a re-made connection).
    func handshake(greeting: ControlFrame? = nil) throws -> (QUICConnection, UInt64) {
        let greeting = greeting ?? .hello(token)
        let credentials = try QUICConnection.tlsCredentials(
            caFile: config.caFile,
            certFile: config.mutualTLS ? config.clientCertFile : nil,
            keyFile: config.mutualTLS ? config.clientKeyFile : nil)
        // With serve's pinned identity, the certificate is checked by its digest once the
        // handshake completes, before any stream data: not by the CA and a name.
        let name = config.certificatePin == nil ? config.expectedName(for: server.host) : nil
        // A new connection starts with no stream and no handshake (a reconnect calls this again).
        setup = ConnectionSetup()
        let start = MonotonicClock.now()
        setup.startedAt = start
        forgetPathWatch(now: start)
        let ticket = resumption.store?.latest
        let tls = try QUICConnection.makeTLS(
            server: false, credentials: credentials, alpn: config.alpn, verifyName: name, requireClientCertificate: false,
            earlyData: config.zeroRTT)
        if let ticket {
            // Before the connection exists: its first Initial carries the ClientHello.
            do { try tls.resume(with: ticket.session) } catch { throw QUICFailure.protocolViolation("the saved session cannot be resumed: \(error)") }
        }
        let ctx = QUICFailure.TLSContext(isServer: false, caFile: config.caFile, verifyName: name, alpn: config.alpn)
        let connection = try QUICConnection(
            .client, local: try SockAddrBox(channel.socket.localAddress()), remote: try SockAddrBox(server),
            tls: tls, settings: config.connection, tlsContext: ctx, peer: server.description)
        connection.delegate = self
        self.connection = connection
        if config.zeroRTT, let ticket {
            try queueEarlyData(on: connection, serverParameters: ticket.transportParameters, greeting: greeting)
        }
        try pump("handshake") { self.setup.handshakeDone }
        if setup.earlyDataRejected {
            // ngtcp2 dropped the streams of the refused 0-RTT data: the same frames again, in 1-RTT.
            if setup.controlStream >= 0 { connection.scheduler.remove(setup.controlStream) }
            setup.controlStream = -1
            let control = try openControlStream(on: connection)
            connection.sender(control).append(copying: FrameEncoder.encode(greeting))
            connection.sender(control).append(copying: FrameEncoder.encode(.ping(Self.earlyProbeSeq)))
        }
        if let pin = config.certificatePin {
            try tls.checkPeerCertificate(pinned: pin, who: "quic client")
        }
        return (connection, start)
    }

    /// The control stream: the one 0-RTT already opened, else a new one (the first
    /// bidirectional stream, 0, which the server takes for the control stream).
    func openControlStream(on connection: QUICConnection) throws -> Int64 {
        if setup.controlStream >= 0 { return setup.controlStream }
        guard let control = connection.openBidiStream() else { throw QUICFailure.protocolViolation("the server allows no bidirectional stream") }
        setup.controlStream = control
        return control
    }

    /// Forgets the current connection without closing it (a failed reconnect attempt).
    func dropConnection() { connection = nil }

    /// Ends a `probeFlow` wait at once (from another thread).
    var waker: ChannelWaker { channel.waker }

    /// Sends on the socket of the packet's path: the current one (connected to the
    /// server), or during a migration the new one for what ngtcp2 wrote for the new path.
    lazy var transmit: QUICConnection.Transmit = { [unowned self] bytes, segment, path in
        let socket = self.migration.probing.map { $0.local.matches(path.pointee.local) ? $0.channel : self.channel } ?? self.channel
        return socket.send(bytes, segment: segment, to: nil, length: 0)
    }

    /// Runs the event loop until `done()` is true; throws when the connection fails,
    /// the cell's deadline passes or the cell is cancelled.
    /// `wakeIn`: nanoseconds until `done` has work again without any datagram (a loaded
    /// probe falling due), or nil.
    func pump(_ phase: String, wakeIn: () -> UInt64? = { nil }, until done: () -> Bool) throws {
        while true {
            if done() { return }
            guard let connection else { throw QUICFailure.protocolViolation("no connection during the \(phase)") }
            connection.service(now: MonotonicClock.now(), transmit: transmit)
            try checkAlive(phase)
            if done() { return }
            // `migrate`: a dead path moves the connection to a new socket (read below).
            let pathDue = try watchPath(connection)
            var loop = QUICEventLoop(channel: channel)
            loop.probe = migration.probing?.channel
            let now = MonotonicClock.now()
            if now >= deadline { throw QUICFailure.deadline(phase: phase) }
            // A reconnect attempt ends with its backoff slot; the next one starts then.
            if let end = resumption.attemptDeadline, now >= end { throw AttemptExpired() }
            let expiry = connection.expiry
            let until = min(deadline, resumption.attemptDeadline ?? .max, pathDue ?? .max)
            let timeout = min(until > now ? until - now : 0, expiry > now ? expiry - now : 0, wakeIn() ?? .max)
            let turn = try loop.turn(
                timeoutNanos: timeout, withSender: false,
                deliverProbe: { datagram, now in
                    connection.read(datagram, path: UnsafePointer(connection.probePath.pathPointer), now: now)
                }
            ) { datagram, _, _, now in
                connection.read(datagram, now: now)
                return !connection.isFinished
            }
            if turn == .woken || cancellation.isCancelled { throw QUICFailure.cancelled(phase: phase) }
            try checkAlive(phase)
        }
    }

    private func checkAlive(_ phase: String) throws {
        guard let connection, connection.isFinished else { return }
        connection.flushClose(transmit)
        if let f = connection.failure { throw f }
        if log.report != nil { return }
        throw QUICFailure.protocolViolation("the server closed the connection during the \(phase)")
    }

    // MARK: QUICConnectionDelegate

    func handshakeCompleted(_ connection: QUICConnection) {
        setup.handshakeDone = true
        if setup.earlyDataAttempted && !connection.tls.isEarlyDataAccepted {
            // ngtcp2 0.12 learns of the refusal from the application (GnuTLS reports it
            // only now): it discards what it sent as 0-RTT and the streams that carried it.
            _ = ngtcp2_conn_early_data_rejected(connection.conn)
            setup.earlyDataRejected = true
        }
    }
    func streamClosed(_ connection: QUICConnection, stream: Int64) {}

    func received(_ connection: QUICConnection, stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws {
        guard stream == setup.controlStream else {
            if workloadStreams.handles(stream) {
                try workloadStreams.received(stream: stream, data: data, fin: fin)
                return
            }
            // A bulk stream: the server only ends its direction, without data.
            guard data.isEmpty else {
                throw FramingError(description: "\(data.count) bytes on bulk stream \(stream); the server only ends bulk streams")
            }
            return
        }
        try setup.controlParser.feed(
            data,
            onData: { _, _ in
                throw FramingError(description: "DATA frame from the server")
            },
            onControl: { frame in
                try self.log.note(frame)
            })
    }
}
