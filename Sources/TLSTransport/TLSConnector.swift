import CPeerBenchSystem
import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchStreams
import PeerBenchSystem

/// How one client run makes its TLS connections: TCP connect, TLS session (offering the
/// saved session when `sessionTickets` is on), handshake, each step timed. The measured
/// connection, the separate probe flow and the priming connection are all made here,
/// and so is a reconnect's new connection.
struct TLSConnector {
    let cell: CellContext
    let server: SocketAddress
    let options: TLSOptions
    let credentials: GnuTLSCredentials
    let files: TLSFiles
    /// The saved session; nil without `sessionTickets`.
    let store: TLSResumptionStore?

    init(_ cell: CellContext, server: SocketAddress, options: TLSOptions) throws {
        self.cell = cell
        self.server = server
        self.options = options
        files = try options.psk == nil ? TLSFiles(options) : TLSFiles(ca: "", cert: "", key: "")
        credentials = try TLSCredentials.client(options, files: files)
        store = options.sessionTickets ? TLSResumptionStore() : nil
    }

    /// How long each step of one connection's set-up took, nanoseconds.
    struct Timing {
        var tcpConnect: UInt64
        var handshake: UInt64
        /// What an application waits for before its first byte: TCP's three-way
        /// handshake, the session's set-up and TLS's handshake.
        var total: UInt64
        /// TCP payload bytes the client had received when its handshake ended: the
        /// server's flight, with its certificate unless the session was resumed; nil
        /// when TCP_INFO cannot say.
        var handshakeBytesReceived: UInt64?
    }

    /// Connects, runs the handshake (resuming the saved session when there is one) and
    /// calls `body` with the session; the socket closes when `body` returns.
    func connect<T>(_ body: (TLSSession, Timing) throws -> T) throws -> T {
        try cell.withStreamConnection("tls", to: server, configure: { try $0.setUp(options) }) { s, tcpConnect in
            let t0 = MonotonicClock.now()
            let tls = try TLSSession(
                client: s, credentials: credentials,
                verifyName: options.serverName ?? server.host, caFile: files.ca, pin: cell.certificatePin)
            if let saved = store?.latest { try tls.resume(with: saved) }
            let t1 = MonotonicClock.now()
            try tls.handshake()
            let now = MonotonicClock.now()
            var info = pb_tcp_info()
            let read = (try? s.withDescriptor("getsockopt(TCP_INFO)", { pb_get_tcp_info($0, &info) })) == 0
            return try body(
                tls,
                Timing(
                    tcpConnect: tcpConnect, handshake: now - t1, total: tcpConnect + (now - t0),
                    handshakeBytesReceived: read ? info.bytes_received : nil))
        }
    }

    /// A re-made connection for `StreamResumableBulk` (`reconnect`): TCP connected within
    /// `timeoutNanos`, then the handshake (resuming the saved session when there is one)
    /// bounded by the same time. Returns it and whether the session was resumed.
    func reconnect(timeoutNanos: UInt64) throws -> (StreamConnection, resumed: Bool) {
        let s = try cell.openStreamConnection(to: server, timeoutNanos: timeoutNanos, configure: { try $0.setUp(options) })
        do {
            try s.setReceiveTimeout(nanoseconds: max(timeoutNanos, 1_000_000))
            let tls = try TLSSession(
                client: s, credentials: credentials,
                verifyName: options.serverName ?? server.host, caFile: files.ca, pin: cell.certificatePin)
            if let saved = store?.latest { try tls.resume(with: saved) }
            try tls.handshake()
            try cell.applyDeadline(to: s)
            let connection = StreamConnection(workload: StreamWorkloadClient("tls", over: tls), socket: s, connectedAt: MonotonicClock.now()) {
                cell.closeStreamConnection(s)
                withExtendedLifetime(tls) {}
            }
            return (connection, tls.isResumed)
        } catch {
            cell.closeStreamConnection(s)
            throw error
        }
    }

    /// The priming connection (`sessionTickets`, docs/protocol/tls.md): a full
    /// handshake, one probe echoed (TLS 1.3's NewSessionTicket comes after the handshake,
    /// before that echo, and GnuTLS takes it in while reading the echo), the session
    /// saved, GOODBYE. Returns its set-up time.
    func prime() throws -> UInt64 {
        guard let store else { return 0 }
        return try connect { tls, timing in
            let workload = StreamWorkloadClient("tls", over: tls)
            var scratch = TransportMeasurement()
            try workload.probe(count: 1, into: &scratch)
            guard tls.hasReceivedSessionTicket else {
                throw TransportError(
                    "tls client: the server sent no session ticket on the priming connection (sessionTickets needs the server's option too)")
            }
            store.save(try tls.resumptionData())
            try workload.goodbye()
            return timing.total
        }
    }
}
