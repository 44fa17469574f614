import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// The server side: answers HELLO and probes, accounts DATA, reports at END (after
/// waiting briefly for stragglers), and ends at BYE.
enum UDPServer {
    static func start(_ cell: CellContext, options: UDPOptions = UDPOptions()) async throws -> any TransportServer {
        let stopper = CellCancellation()
        // Parallel flows (a bulk's `streams`): a socket and session per flow, the pace shared.
        let flows = UDPParallelFlows.count(of: cell.workload)
        let rate = options.rateMbps.map { $0 / Double(flows) }
        var sockets: [Socket] = []
        for _ in 0..<flows {
            let s = try await cell.server.run("udp-bind") { () throws -> Socket in
                let s = try UDPSocketSetup.make(
                    family: SocketAddress(host: cell.server.address, port: 0).family, receiveBuffer: options.receiveBufferBytes)
                cell.markServiceClass(s)
                try s.setOption(SOL_SOCKET, SO_TIMESTAMPNS, Int32(1), "SO_TIMESTAMPNS")
                _ = try cell.server.bindServer(s)
                return s
            }
            cell.cancellation.register(s)
            stopper.register(s)
            sockets.append(s)
        }
        let socket = sockets[0]
        // A separate probe flow (loadedRttProbes.flow): a second socket, announced in HELLO_ACK.
        let echo =
            options.loadedRttProbes?.flow == .separate
            ? try await cell.server.run("udp-probe-bind") { try UDPProbeFlowEcho(cell: cell) } : nil
        if let echo {
            cell.cancellation.register(echo.socket)
            stopper.register(echo.socket)
        }
        let address = try socket.localAddress()
        let flowPorts = try sockets.dropFirst().map { Int(try $0.localAddress().port) }
        let task = Task<Void, any Error> {
            defer {
                for s in sockets {
                    cell.cancellation.unregister(s)
                    stopper.unregister(s)
                }
            }
            echo?.start()
            defer {
                if let echo {
                    echo.stop()
                    cell.cancellation.unregister(echo.socket)
                    stopper.unregister(echo.socket)
                    echo.socket.close()
                }
            }
            // Every flow's session at once, each on its own thread; the first error is the server's.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (i, s) in sockets.enumerated() {
                    group.addTask {
                        try await cell.server.run(i == 0 ? "udp-server" : "udp-server flow \(i + 1)") {
                            try UDPServerSession(socket: s, cell: cell, stopper: stopper, probePort: i == 0 ? echo?.port : nil, rateMbps: rate).run()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let server = SessionServer(address: address, stopper: stopper, task: task)
        return flows > 1 ? UDPParallelFlows.Server(server: server, ports: flowPorts) : server
    }
}

/// One client's session. Everything here runs on the server's own thread.
final class UDPServerSession {
    /// How often an idle receive wakes up to check timers, the deadline and `stop()`.
    static let tick: UInt64 = 20_000_000
    /// After the report, a session with no traffic for this long ends (every BYE was
    /// lost). Until then the server must stay: its REPORT may have been lost too, and
    /// the client's END retransmissions (at least one a second) have to find it through
    /// a fade. The client keeps sending BYE for as long, so a quiet end costs this only
    /// when the link is down for all of it.
    static let idleAfterReport: UInt64 = UDPClient.goodbyeWindow

    private let socket: Socket
    private let cell: CellContext
    private let stopper: CellCancellation
    private var session: UInt32?
    /// The upload: its DATA, the END's wait and the REPORT.
    private var upload = UDPUploadReceiver()
    /// In an authenticated cell (a remote link's key): every datagram must carry its tag.
    private var filter: UDPTagFilter
    private var lastHeard = MonotonicClock.now()
    private var finished = false
    /// The separate probe flow's port, announced in HELLO_ACK; nil without one.
    private let probePort: UInt16?
    /// Download, request-response and isochronous (docs/protocol/udp.md, "Workloads").
    private var workloads = UDPServerWorkloads()
    /// The plugin's `rateMbps`: paces a PULL's DATA as it paces the client's upload.
    private let rateMbps: Double?

    init(socket: Socket, cell: CellContext, stopper: CellCancellation, probePort: UInt16? = nil, rateMbps: Double? = nil) {
        self.rateMbps = rateMbps
        self.socket = socket
        self.cell = cell
        self.stopper = stopper
        self.probePort = probePort
        filter = UDPTagFilter(cell.dataKey.map(UDPDatagramTag.init(key:)))
        appLoop = AppReceiveLoop(cell.appLoop)
    }

    private var stopped: Bool { stopper.isCancelled || cell.cancellation.isCancelled }
    /// The receiving app's loop (`CellContext.appLoop`): datagrams are taken one receive
    /// cost after the one before, the socket is read no faster, and a probe is answered
    /// when the app takes it. nil: taken as they arrive.
    private var appLoop: AppReceiveLoop?

    func run() throws {
        // A FRAME_PULL's or PULL's sender must not outlive the session: the socket closes after it.
        defer { endWorkloads() }
        try UDPSocketSetup.receiveTimeout(socket, nanos: Self.tick)
        let rx = UDPBatchReceiver(capacity: 64)
        while !finished {
            if stopped { return }
            if cell.remainingNanos == 0 {
                // The client got its report (or its workload's answers); only the BYE is missing.
                if upload.report != nil || workloads.concluded { return }
                throw TransportError(
                    session == nil
                        ? "udp server: no client before the cell deadline"
                        : "udp server: the bulk phase did not end before the cell deadline")
            }
            let n: Int?
            appLoop?.waitUntilReady()
            do { n = try rx.receive(socket) } catch let e as SystemError where e.errno == ECONNREFUSED {
                continue  // an ICMP error for an earlier reply; the client retransmits
            }
            if let n {
                if n == 0 { if stopped { return } else { continue } }
                let fallbackArrival = MonotonicClock.now()
                let realNow = LoadedEchoPoller.realtimeNow()
                for i in 0..<n where !finished {
                    // The kernel's stamp (realtime) moved to the monotonic clock by its age.
                    let stamp = rx.timestamp(i)
                    var monotonic = stamp.map { fallbackArrival &- (realNow > $0 ? realNow - $0 : 0) } ?? fallbackArrival
                    var arrival = stamp ?? fallbackArrival
                    if appLoop != nil {
                        let taken = appLoop!.take(arrivedAt: monotonic)
                        arrival &+= taken - monotonic
                        monotonic = taken
                    }
                    handle(rx.datagram(i), source: { rx.source(i) }, arrival: arrival, monotonicArrival: monotonic)
                }
            }
            try timers()
        }
    }

    /// One datagram from `source` (asked only for a HELLO that may start the session).
    /// Every number in it is bounded before use: the HELLO's count by the cell's own
    /// payload, END's counts by clamping, DATA's sequence by the announced count.
    func handle(_ tagged: UnsafeRawBufferPointer, source: () -> SocketAddress?, arrival: UInt64, monotonicArrival: UInt64) {
        guard let d = filter.admit(tagged), let h = UDPDatagramHeader(d) else { return }
        if h.type == .data {
            // The hot path: one bitmap lookup and a jitter update per datagram.
            guard h.session == session else { return }
            upload.data(h, payloadBytes: d.count - UDPDatagramHeader.size, arrival: arrival, monotonicArrival: monotonicArrival)
            return
        }
        lastHeard = MonotonicClock.now()
        if h.type == .hello { return hello(h, d, source: source) }
        guard h.session == session else { return }
        switch h.type {
        case .probe:
            if appLoop != nil { MonotonicClock.sleep(until: monotonicArrival) }  // when the app took it
            reply(UDPDatagramHeader(type: .echo, session: h.session, sequence: h.sequence, timestamp: h.timestamp).datagram())
        case .keepAlive:
            reply(UDPDatagramHeader(type: .keepAliveAck, session: h.session, sequence: h.sequence, timestamp: h.timestamp).datagram())
        case .end:
            if let report = upload.report {
                reply(report)
                return
            }
            upload.end(d, now: MonotonicClock.now())
            sendReportIfDue()
        case .resume:
            // Stateless, like a KEEPALIVE: where the client's DATA got to, for it to carry on.
            reply(
                UDPDatagramHeader(type: .resumed, session: h.session, sequence: h.sequence, timestamp: h.timestamp)
                    .datagram([UInt64(upload.stats.received), upload.stats.nextSequence]))
        case .bye:
            reply(UDPDatagramHeader(type: .byeAck, session: h.session, sequence: h.sequence, timestamp: h.timestamp).datagram())
            finished = true
        case .request:
            if let r = workloads.response(to: h, d) { reply(r) }
        case .frame:
            workloads.frame(seq: h.sequence, at: monotonicArrival)
        case .frameEnd:
            if let r = workloads.frameEnd(d, session: h.session, now: MonotonicClock.now()) { reply(r) }
        case .framePull:
            if let r = workloads.framePull(d, socket: socket, session: h.session) { reply(r) }
        case .pull:
            if let r = workloads.pull(d, socket: socket, session: h.session, payload: cell.payload, rateMbps: rateMbps) { reply(r) }
        case .hello, .helloAck, .echo, .data, .report, .byeAck, .keepAliveAck, .resumed, .response, .frameReport, .framesSent, .pushed:
            break
        }
    }

    /// HELLO: the first from a client this cell can serve starts the session; any of
    /// the session's own is answered.
    private func hello(_ h: UDPDatagramHeader, _ d: UnsafeRawBufferPointer, source: () -> SocketAddress?) {
        if session == nil {
            // A HELLO announcing more DATA than this cell carries is not this cell's
            // client: ignored before its count sizes anything (issue 24, finding 1).
            guard let expected = Self.announcedCount(d.field(0), cell: cell.payload), let from = source() else { return }
            // Connecting filters out every other sender from now on.
            guard (try? socket.connect(from)) != nil else { return }
            session = h.session
            upload = UDPUploadReceiver(expected: expected)
        }
        if h.session == session {
            reply(
                UDPDatagramHeader(type: .helloAck, session: h.session, sequence: h.sequence, timestamp: h.timestamp)
                    .datagram(probePort.map { [UInt64($0)] } ?? []))
        }
    }

    /// The HELLO's DATA count if this cell can carry it (at most the cell's payload
    /// count, 0 without a payload); nil for anything larger.
    static func announcedCount(_ count: UInt64, cell payload: Payload?) -> Int? {
        let limit = UInt64(max(0, payload?.count ?? 0))
        return count <= limit ? Int(count) : nil
    }

    /// Datagrams dropped because their tag did not verify.
    var unauthenticated: Int { filter.dropped }
    /// The receiver's accounting so far (tests look at its bound).
    var receiverStats: UDPReceiverStats { upload.stats }
    /// The workload kinds' state so far (tests look at its bounds).
    var workloadState: UDPServerWorkloads { workloads }

    /// Stops a FRAME_PULL's or PULL's sender still sending, and waits for it.
    func endWorkloads() { workloads.stop() }

    private func timers() throws {
        sendReportIfDue()
        if let session, let r = workloads.reportIfDue(session: session, now: MonotonicClock.now()) { reply(r) }
        // Sending a FRAME_PULL's frames or a PULL's DATA is activity: the idle time starts after the last.
        if workloads.sending { lastHeard = MonotonicClock.now() }
        if upload.report != nil || workloads.concluded, MonotonicClock.elapsed(since: lastHeard) > Self.idleAfterReport { finished = true }
    }

    /// Sends the REPORT when it is made now (`UDPUploadReceiver.reportIfDue`).
    private func sendReportIfDue() {
        if let r = upload.reportIfDue(session: session ?? 0, now: MonotonicClock.now(), unauthenticated: filter.dropped) { reply(r) }
    }

    /// Best effort: a lost reply is repaired by the client's retransmission.
    private func reply(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { try? socket.send($0) }
    }
}
