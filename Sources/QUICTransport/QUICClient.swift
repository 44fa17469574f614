#if canImport(Glibc)
import Glibc
#endif
import CNgtcp2
import GnuTLSSupport
import PeerBenchJSON
import PeerBenchSystem
import PeerBenchPlugin

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

    private var controlStream: Int64 = -1
    private var controlParser = FrameParser(acceptsSeries: true)
    private var pongs: [UInt64: UInt64] = [:]
    /// Pipelined probes: nanoseconds between probe sends (0 = all at once).
    private var probeSpacing: UInt64 = 0
    /// Loaded probes (`loadedRttProbes`): PINGs during the bulk phase, their sequence
    /// numbers with the top bit set so they never meet the idle probes' (0, 1, ...).
    static let loadedFlag: UInt64 = 1 << 63
    private var loadedSent: [(seq: UInt64, at: UInt64)] = []
    private(set) var report: ReportBody?
    /// The server's bulk series (SERIES, before REPORT); nil when it sent none.
    private(set) var series: BulkSeries?
    private var handshakeDone = false
    /// The request, frame and pull streams of a workload beyond the upload (`runWorkload`).
    let workloadStreams = ClientWorkloadStreams()

    let token: CellToken
    let serviceClass: ServiceClass

    /// The session to resume and where the priming connection saves it (`resumption`); nil = off.
    let store: QUICResumptionStore?
    /// The priming connection's set-up time, for `extra.quic` (set by whoever primed `store`).
    var primingNanos: UInt64?
    /// The sequence number of the PING sent as 0-RTT early data with HELLO (`zeroRTT`):
    /// apart from the idle probes' 0, 1, ... and the loaded probes' top bit.
    static let earlyProbeSeq: UInt64 = 1 << 62
    /// This connection queued HELLO and a PING as 0-RTT data (sent as such only when
    /// the ticket allows early data).
    private var earlyDataAttempted = false
    /// The server refused the 0-RTT data: HELLO and the PING were sent again after the handshake.
    private var earlyDataRejected = false
    var helloQueued = false
    /// When the first PONG of the connection arrived (the early PING's, else probe 0's).
    private var firstPongAt: UInt64?
    /// `reconnect`: the server's RESUMED on a re-made connection (nil until it arrives).
    var resumedAnswer: ResumedBody?
    /// `reconnect`: the end of the current attempt's slot (`MonotonicClock`); nil = none.
    var attemptDeadline: UInt64?
    /// When the current connection's handshake started (`handshake`).
    private var handshakeStartedAt: UInt64 = 0
    /// `migrate`: the current path's judge (nil = off) and the migrations made so far.
    var pathWatch: PathWatch?
    var migrationEvents: [MigrationEvent] = []
    /// `migrate`: the new socket while its path is validated (nil = none).
    var probing: MigrationProbe?
    /// `migrate`: moves abandoned because the new path did not validate.
    var failedMigrations = 0

    init(config: QUICConfiguration, server: SocketAddress, token: CellToken, deadline: UInt64, cancellation: CellCancellation,
         serviceClass: ServiceClass, store: QUICResumptionStore? = nil) throws {
        self.store = store
        self.serviceClass = serviceClass
        self.config = config
        self.token = token
        self.server = server
        self.deadline = deadline
        self.cancellation = cancellation
        channel = try UDPChannel(family: server.family, serviceClass: serviceClass)
        try channel.socket.connect(server)
        pathWatch = config.migrate.map { PathWatch(policy: $0, now: MonotonicClock.now()) }
    }

    /// Runs the whole workload and returns the measurement. If it fails after the
    /// connection exists, the server is told with CONNECTION_CLOSE (application
    /// error 2, the reason as text) instead of being left to its idle timeout.
    /// At the cell's deadline it also cancels the cell (`CellCancellation`), as the
    /// runner's deadline does.
    /// `method`: how the idle probes are sent; `askSpan`: the server's hello offers the
    /// receiver's span, so DONE asks for it.
    /// `workload`: what runs after the probes (docs/WORKLOADS.md); the upload by default.
    func run(payload: Payload?, probes: Int, seed: UInt64, method: RTTMethod = .pingPong, probeSpacing: UInt64 = 0,
             askSpan: Bool = false, workload spec: WorkloadSpec = .upload) throws -> TransportMeasurement {
        self.probeSpacing = probeSpacing
        do {
            return try workload(spec, payload: payload, probes: probes, seed: seed, method: method, askSpan: askSpan)
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

    private func workload(_ spec: WorkloadSpec, payload: Payload?, probes: Int, seed: UInt64, method: RTTMethod,
                          askSpan: Bool) throws -> TransportMeasurement {
        cancellation.register(channel.socket)
        cancellation.onCancel { [waker = channel.waker] in waker.wake() }
        defer { cancellation.unregister(channel.socket) }

        var m = TransportMeasurement()
        // ngtcp2's controller, as configured on this connection (the record's `congestion_control`).
        m.congestionControl = config.connection.congestionControl.rawValue

        let (first, start) = try handshake()
        m.connectNanos = (first.handshakeCompletedAt ?? start) - start
        let control = try idleProbes(probes, method: method, on: first, into: &m)

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
            connection = try resumableBulk(policy, count: count, size: size, block: block, askSpan: askSpan,
                                           first: first, control: control, into: &m)
            loadedProbesSent = nil
        } else {
            loadedProbesSent = try bulkPhase(count: count, size: size, block: block, askSpan: askSpan,
                                             on: first, stream: control, into: &m)
            connection = first
        }
        guard let r = report else { throw QUICFailure.protocolViolation("no REPORT after the bulk phase") }
        if spec.isUpload {
            m.delivery = Delivery(sentMessages: count, receivedMessages: Int(r.messages), sentBytes: count * size, receivedBytes: Int(r.bytes))
            if r.messages < UInt64(count) { m.status = .partial }
            // Never hidden: a message the server counted twice over a reconnect.
            if r.messages > UInt64(count) { m.delivery?.duplicated = Int(r.messages) - count }
            m.bulkSeries = series
            m.receiverSpanNanos = r.spanNanos
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
    private func stats(of connection: QUICConnection, first: QUICConnection, start: UInt64, report r: ReportBody,
                       loadedProbesSent: Int?, into m: inout TransportMeasurement) -> JSONObject {
        var stats = QUICStats.record(connection, start: connection === first ? start : handshakeStartedAt, report: r, config: config)
        if let loadedProbesSent { stats["loaded_probes_sent"] = JSONValue(loadedProbesSent) }
        if config.migrate != nil {
            // `migrate`: the connection's moves, each brought up to date (sets `m.migrations`).
            m.migrations = migrations(settledOn: connection)
            stats["migrations"] = Self.migrationDetail(m.migrations ?? [])
            stats["migrations_not_validated"] = JSONValue(failedMigrations)
        }
        for (k, v) in workloadStreams.extra { stats[k] = v }
        // Time to the first echoed probe: what 0-RTT shortens (the handshake time does not change).
        stats["first_echo_ms"] = firstPongAt.map { .number(Double($0 - start) / 1e6) } ?? .null
        if store != nil {
            stats["resumed"] = .bool(connection.tls.isResumed)
            stats["priming_connect_ms"] = primingNanos.map { .number(Double($0) / 1e6) } ?? .null
            // With reconnect, `resumableBulk` set it over every connection of the cell.
            if m.resumed == nil { m.resumed = connection.tls.isResumed }
            if config.zeroRTT {
                stats["early_data_accepted"] = .bool(earlyDataAttempted && !earlyDataRejected && connection.tls.isEarlyDataAccepted)
            }
        }
        return stats
    }

    /// Opens the control stream, queues HELLO and runs the idle probes by `method`;
    /// returns the control stream.
    private func idleProbes(_ probes: Int, method: RTTMethod, on connection: QUICConnection,
                            into m: inout TransportMeasurement) throws -> Int64 {
        // Probes: one PING at a time on the control stream, timed until its PONG.
        let control = try openControlStream(on: connection)
        // HELLO first: it travels with the first PING (or DONE) and costs no round trip.
        if !helloQueued { connection.sender(control).append(copying: FrameEncoder.encode(.hello(token))) }
        helloQueued = true
        m.rttNanos.reserveCapacity(probes)
        m.rttMethod = method
        switch method {
        case .pingPong:
            for seq in 0..<UInt64(probes) {
                let sent = MonotonicClock.now()
                connection.sender(control).append(copying: FrameEncoder.encode(.ping(seq)))
                try pump("RTT probes") { self.pongs[seq] != nil }
                m.rttNanos.append((pongs.removeValue(forKey: seq) ?? sent) - sent)
            }
        case .pipelined, .sendLoop:
            try pipelinedProbes(probes, spacing: method == .sendLoop ? 0 : probeSpacing, on: connection, stream: control, into: &m)
        }
        m.probesSent = probes
        return control
    }

    /// The bulk phase: `count` messages of `block` handed to streams, DONE, then the
    /// event loop until the REPORT (and the echoes of loaded probes still in flight).
    /// Sets the bulk time and the loaded RTTs; returns how many loaded probes were
    /// sent, nil without loaded probes.
    /// With `reconnect`: `offset` messages the server already holds (this connection
    /// sends the rest), `bulkStart` the first connection's bulk clock, and `handed`
    /// tells, when the connection fails, how many of its messages went to ngtcp2.
    func bulkPhase(count: Int, size: Int, block: MessageBlock, askSpan: Bool, on connection: QUICConnection,
                   stream control: Int64, offset: Int = 0, bulkStart: UInt64 = MonotonicClock.now(),
                   handed: ((Int) -> Void)? = nil, into m: inout TransportMeasurement) throws -> Int? {
        var bulk = BulkSchedule(count: count - offset, mode: config.streams)
        var doneSent = false
        let separate = config.loadedRttProbes?.flow == .separate
        var loaded = LoadedProbeSchedule(separate ? nil : config.loadedRttProbes)
        loaded.begin(at: bulkStart)
        let prober = try separate && count > 0 ? QUICSeparateFlow(client: QUICClient(config: config, server: server, token: token, deadline: deadline,
                                                                           cancellation: cancellation, serviceClass: serviceClass),
                                                               probes: config.loadedRttProbes!) : nil
        defer { _ = try? prober?.finish() }
        var bulkNanos: UInt64?
        // A probe queued after this turn's service pass: turn again at once so it leaves now.
        var probeQueued = false
        do { try pump("bulk phase", wakeIn: {
            if probeQueued { probeQueued = false; return 0 }
            return loaded.intervalNanos == nil || bulkNanos != nil ? nil : loaded.nanosUntilDue()
        }) {
            if !doneSent {
                bulk.advance(connection: connection, block: block)
                if bulk.isHandedOver {
                    connection.sender(control).append(copying: FrameEncoder.encode(.done(DoneBody(
                        messages: UInt64(count), bytes: UInt64(count) * UInt64(size), streams: UInt64(bulk.streamsUsed),
                        flags: askSpan ? DoneBody.flagReceiverSpan : nil))))
                    doneSent = true
                }
            }
            if self.report == nil {
                // Loaded probes on the control stream, beside the bulk stream(s): until the REPORT.
                if let probe = Self.queueDueProbe(&loaded, on: connection, stream: control) {
                    loadedSent.append(probe)
                    probeQueued = true
                }
                return false
            }
            if bulkNanos == nil { bulkNanos = MonotonicClock.now() - bulkStart }
            // After the REPORT: the echoes of loaded probes still in flight (a server that
            // closed once the REPORT was acknowledged leaves the rest unanswered).
            return connection.isFinished || loadedSent.allSatisfy { pongs[$0.seq] != nil }
        } } catch {
            handed?(bulk.handed(blockSize: block.bytes.count))
            throw error
        }
        m.bulkNanos = bulkNanos ?? (MonotonicClock.now() - bulkStart)
        if loaded.intervalNanos != nil {
            m.rttLoadedNanos = loadedSent.compactMap { p in pongs[p.seq].map { $0 - p.at } }
        }
        if let prober {
            let result = try prober.finish()
            m.rttLoadedNanos = result.rtts
            return result.sent
        }
        return loaded.intervalNanos != nil ? loadedSent.count : nil
    }

    /// Pipelined probes (`RTTMethod.pipelined`): every PING queued on the control stream
    /// at once, each stamped as it is queued, then the event loop runs until every PONG
    /// is in; each PONG is timed as ngtcp2 hands it over. ngtcp2 packs the PINGs into as
    /// few packets as its congestion window allows, as a stack does with writes that
    /// come faster than the network takes them. A lost packet is retransmitted by QUIC,
    /// so every probe is answered (or the cell ends at its deadline).
    /// With `spacing`, probe i is queued at start + i x spacing, from inside the event loop.
    private func pipelinedProbes(_ probes: Int, spacing: UInt64, on connection: QUICConnection, stream control: Int64,
                                 into m: inout TransportMeasurement) throws {
        guard probes > 0 else { return }
        var sentAt: [UInt64] = []
        sentAt.reserveCapacity(probes)
        var times = PipelinedProbeTimes()
        let start = MonotonicClock.now()
        func queueDue() {
            let now = MonotonicClock.now()
            while sentAt.count < probes && (spacing == 0 || start &+ UInt64(sentAt.count) &* spacing <= now) {
                let t = MonotonicClock.now()
                connection.sender(control).append(copying: FrameEncoder.encode(.ping(UInt64(sentAt.count))))
                sentAt.append(t)
                times.sent(at: t)
            }
        }
        queueDue()
        func nextDue() -> UInt64? {
            guard sentAt.count < probes else { return nil }
            let due = start &+ UInt64(sentAt.count) &* spacing, now = MonotonicClock.now()
            return due > now ? due - now : 0
        }
        // Only idle PONGs (0..<probes) can be in `pongs` before the bulk phase.
        try pump("pipelined RTT probes", wakeIn: nextDue) {
            queueDue()
            return self.pongs.count >= probes
        }
        for seq in 0..<probes {
            let at = pongs.removeValue(forKey: UInt64(seq)) ?? sentAt[seq]
            m.rttNanos.append(at > sentAt[seq] ? at - sentAt[seq] : 0)
            times.echoed(at: at)
        }
        m.extra[PipelinedProbeTimes.extraKey] = times.json
    }

    /// From creating the TLS session to the handshake_completed callback; returns the
    /// connection and when the handshake started. Every connection of the client is
    /// made here (measured, separate probe flow, priming; a reconnect too): it resumes
    /// the store's session when there is one, and with `zeroRTT` queues the early data.
    /// `greeting`: the control stream's first frame, `HELLO` (RESUME on a re-made connection).
    func handshake(greeting: ControlFrame? = nil) throws -> (QUICConnection, UInt64) {
        let greeting = greeting ?? .hello(token)
        let credentials = try QUICConnection.tlsCredentials(caFile: config.caFile,
                                                            certFile: config.mutualTLS ? config.clientCertFile : nil,
                                                            keyFile: config.mutualTLS ? config.clientKeyFile : nil)
        // With serve's pinned identity, the certificate is checked by its digest once the
        // handshake completes, before any stream data: not by the CA and a name.
        let name = config.certificatePin == nil ? config.expectedName(for: server.host) : nil
        // A new connection starts with no stream and no handshake (a reconnect calls this again).
        handshakeDone = false
        controlStream = -1
        helloQueued = false
        earlyDataAttempted = false
        earlyDataRejected = false
        controlParser = FrameParser(acceptsSeries: true)
        let start = MonotonicClock.now()
        handshakeStartedAt = start
        forgetPathWatch(now: start)
        let ticket = store?.latest
        let tls = try QUICConnection.makeTLS(server: false, credentials: credentials, alpn: config.alpn, verifyName: name, requireClientCertificate: false,
                                             earlyData: config.zeroRTT)
        if let ticket {
            // Before the connection exists: its first Initial carries the ClientHello.
            do { try tls.resume(with: ticket.session) } catch { throw QUICFailure.protocolViolation("the saved session cannot be resumed: \(error)") }
        }
        let ctx = QUICFailure.TLSContext(isServer: false, caFile: config.caFile, verifyName: name, alpn: config.alpn)
        let connection = try QUICConnection(.client, local: try SockAddrBox(channel.socket.localAddress()), remote: try SockAddrBox(server),
                                            tls: tls, settings: config.connection, tlsContext: ctx, peer: server.description)
        connection.delegate = self
        self.connection = connection
        if config.zeroRTT, let ticket {
            try queueEarlyData(on: connection, serverParameters: ticket.transportParameters, greeting: greeting)
        }
        try pump("handshake") { self.handshakeDone }
        if earlyDataRejected {
            // ngtcp2 dropped the streams of the refused 0-RTT data: the same frames again, in 1-RTT.
            if controlStream >= 0 { connection.scheduler.remove(controlStream) }
            controlStream = -1
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
        if controlStream >= 0 { return controlStream }
        guard let control = connection.openBidiStream() else { throw QUICFailure.protocolViolation("the server allows no bidirectional stream") }
        controlStream = control
        return control
    }

    /// 0-RTT (`zeroRTT`): within the server's remembered transport parameters, HELLO and
    /// one PING (`earlyProbeSeq`) go out as early data with the ClientHello, so the
    /// server can answer before the handshake completes.
    private func queueEarlyData(on connection: QUICConnection, serverParameters: [UInt8], greeting: ControlFrame) throws {
        let rv = serverParameters.withUnsafeBufferPointer {
            pb_ngtcp2_conn_set_early_remote_transport_params(connection.conn, $0.baseAddress, $0.count)
        }
        guard rv == 0 else { throw QUICFailure.library("restoring the server's transport parameters for 0-RTT", code: rv) }
        let control = try openControlStream(on: connection)
        connection.sender(control).append(copying: FrameEncoder.encode(greeting))
        connection.sender(control).append(copying: FrameEncoder.encode(.ping(Self.earlyProbeSeq)))
        helloQueued = true
        earlyDataAttempted = true
    }

    /// The priming connection (`resumption`, docs/protocol/quic.md): a full handshake,
    /// PROBE_HELLO and one PING; once its PONG is in (the server's NewSessionTicket comes
    /// with its handshake completion, before the PONG), the session and the server's
    /// transport parameters are saved in the store, and the connection closes cleanly.
    /// Returns the handshake time.
    func prime() throws -> UInt64 {
        guard let store else { return 0 }
        cancellation.register(channel.socket)
        cancellation.onCancel { [waker = channel.waker] in waker.wake() }
        defer { cancellation.unregister(channel.socket) }
        do {
            let (connection, start) = try handshake()
            let control = try openControlStream(on: connection)
            connection.sender(control).append(copying: FrameEncoder.encode(.probeHello(token)))
            connection.sender(control).append(copying: FrameEncoder.encode(.ping(0)))
            try pump("priming connection") { self.pongs[0] != nil }
            guard connection.tls.hasReceivedSessionTicket else {
                throw QUICFailure.protocolViolation("the server sent no session ticket on the priming connection")
            }
            let session: ResumptionData
            do { session = try connection.tls.resumptionData() } catch {
                throw QUICFailure.protocolViolation("the primed session cannot be saved: \(error)")
            }
            store.save(QUICResumptionTicket(session: session, transportParameters: try Self.remoteTransportParameters(connection)))
            connection.close(.application(ApplicationError.noError, ""), transmit: transmit)
            self.connection = nil
            return (connection.handshakeCompletedAt ?? start) - start
        } catch {
            if let c = connection, !c.isFinished {
                c.close(.application(ApplicationError.aborted, "client gave up: \(error)"), transmit: transmit)
            }
            connection = nil
            throw error
        }
    }

    /// The server's transport parameters as ngtcp2 received them, encoded.
    private static func remoteTransportParameters(_ connection: QUICConnection) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBufferPointer { pb_ngtcp2_encode_remote_transport_params(connection.conn, $0.baseAddress, $0.count) }
        guard n > 0 else { throw QUICFailure.library("saving the server's transport parameters", code: Int32(n)) }
        return Array(buffer.prefix(Int(n)))
    }

    /// Queues the loaded probe `schedule` has due now as a PING on `control` (sequence
    /// number with `loadedFlag` set); returns its sequence number and send time, or nil
    /// when none is due.
    private static func queueDueProbe(_ schedule: inout LoadedProbeSchedule, on connection: QUICConnection,
                                      stream control: Int64) -> (seq: UInt64, at: UInt64)? {
        let now = MonotonicClock.now()
        guard let k = schedule.takeDue(now: now) else { return nil }
        let seq = loadedFlag | UInt64(k)
        connection.sender(control).append(copying: FrameEncoder.encode(.ping(seq)))
        return (seq, now)
    }

    /// The separate probe flow's whole life (`loadedRttProbes.flow` `separate`): its own
    /// handshake, PROBE_HELLO, then a PING every interval on its control stream until
    /// `stopRequested` (checked each turn; `wake` ends a wait), then a clean close.
    /// Returns the answered probes' RTTs in send order and how many were sent.
    func probeFlow(_ probes: LoadedRttProbes, stopRequested: @escaping () -> Bool) throws -> (rtts: [UInt64], sent: Int) {
        cancellation.register(channel.socket)
        cancellation.onCancel { [waker = channel.waker] in waker.wake() }
        defer { cancellation.unregister(channel.socket) }
        var sent: [(seq: UInt64, at: UInt64)] = []
        do {
            let (connection, _) = try handshake()
            guard let control = connection.openBidiStream() else { throw QUICFailure.protocolViolation("the server allows no bidirectional stream") }
            controlStream = control
            connection.sender(control).append(copying: FrameEncoder.encode(.probeHello(token)))
            var schedule = LoadedProbeSchedule(probes)
            schedule.begin(at: MonotonicClock.now())
            var queued = true  // PROBE_HELLO leaves at once
            try pump("separate-flow probes", wakeIn: {
                if queued { queued = false; return 0 }
                return schedule.nanosUntilDue()
            }) {
                if stopRequested() { return true }
                if let probe = Self.queueDueProbe(&schedule, on: connection, stream: control) {
                    sent.append(probe)
                    queued = true
                }
                return false
            }
        } catch {
            // The stop's wake-up ends a wait as a cancellation would (also during the
            // handshake, when the bulk phase was shorter than it): not a failure.
            guard stopRequested(), !cancellation.isCancelled else { throw error }
        }
        if let connection, !connection.isFinished { connection.close(.application(ApplicationError.noError, ""), transmit: transmit) }
        self.connection = nil
        return (sent.compactMap { p in pongs[p.seq].map { $0 - p.at } }, sent.count)
    }

    /// Forgets the current connection without closing it (a failed reconnect attempt).
    func dropConnection() { connection = nil }

    /// Ends a `probeFlow` wait at once (from another thread).
    var waker: ChannelWaker { channel.waker }

    /// Sends on the socket of the packet's path: the current one (connected to the
    /// server), or during a migration the new one for what ngtcp2 wrote for the new path.
    lazy var transmit: QUICConnection.Transmit = { [unowned self] bytes, segment, path in
        let socket = self.probing.map { $0.local.matches(path.pointee.local) ? $0.channel : self.channel } ?? self.channel
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
            loop.probe = probing?.channel
            let now = MonotonicClock.now()
            if now >= deadline { throw QUICFailure.deadline(phase: phase) }
            // A reconnect attempt ends with its backoff slot; the next one starts then.
            if let end = attemptDeadline, now >= end { throw AttemptExpired() }
            let expiry = connection.expiry
            let until = min(deadline, attemptDeadline ?? .max, pathDue ?? .max)
            let timeout = min(until > now ? until - now : 0, expiry > now ? expiry - now : 0, wakeIn() ?? .max)
            let turn = try loop.turn(timeoutNanos: timeout, withSender: false, deliverProbe: { datagram, now in
                connection.read(datagram, path: UnsafePointer(connection.probePath.pathPointer), now: now)
            }) { datagram, _, _, now in
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
        if report != nil { return }
        throw QUICFailure.protocolViolation("the server closed the connection during the \(phase)")
    }

    // MARK: QUICConnectionDelegate

    func handshakeCompleted(_ connection: QUICConnection) {
        handshakeDone = true
        if earlyDataAttempted && !connection.tls.isEarlyDataAccepted {
            // ngtcp2 0.12 learns of the refusal from the application (GnuTLS reports it
            // only now): it discards what it sent as 0-RTT and the streams that carried it.
            _ = ngtcp2_conn_early_data_rejected(connection.conn)
            earlyDataRejected = true
        }
    }
    func streamClosed(_ connection: QUICConnection, stream: Int64) {}

    func received(_ connection: QUICConnection, stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws {
        guard stream == controlStream else {
            if workloadStreams.handles(stream) {
                try workloadStreams.received(stream: stream, data: data, fin: fin)
                return
            }
            // A bulk stream: the server only ends its direction, without data.
            guard data.isEmpty else { throw FramingError(description: "\(data.count) bytes on bulk stream \(stream); the server only ends bulk streams") }
            return
        }
        try controlParser.feed(data, onData: { _, _ in
            throw FramingError(description: "DATA frame from the server")
        }, onControl: { frame in
            switch frame {
            case .pong(let seq):
                let now = MonotonicClock.now()
                if self.firstPongAt == nil { self.firstPongAt = now }
                // The early PING is not an idle probe: kept out of `pongs`, which counts those.
                if seq != Self.earlyProbeSeq { self.pongs[seq] = now }
            case .report(let r): self.report = r
            case .series(let s):
                guard self.report == nil else { throw FramingError(description: "SERIES after REPORT") }
                self.series = s
            case .resumed(let r):
                guard self.resumedAnswer == nil else { throw FramingError(description: "second RESUMED") }
                self.resumedAnswer = r
            case .ping, .done, .hello, .probeHello, .resume, .request, .frame, .framePull, .pull, .flow:
                throw FramingError(description: "server sent a client-only frame (\(frame))")
            case .frameArrivals: throw FramingError(description: "FRAME_ARRIVALS on the control stream")
            case .flowReport: throw FramingError(description: "FLOW_REPORT on the control stream")
            }
        })
    }
}
