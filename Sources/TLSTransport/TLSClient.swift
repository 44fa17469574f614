import GnuTLSSupport
import PeerBenchPlugin

/// The client side: the standard workload (Core's `StreamWorkloadClient`) over one
/// TLS 1.3 connection; GnuTLS cuts each bulk write into 16 KiB records.
enum TLSClient {
    static func run(_ cell: CellContext, server: SocketAddress, options: TLSOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        let files = try options.psk == nil ? TLSFiles(options) : TLSFiles(ca: "", cert: "", key: "")
        let credentials = try TLSCredentials.client(options, files: files)
        try cell.withStreamConnection("tls", to: server, configure: { try $0.setUp(options) }) { s, tcpConnect in
            let t0 = MonotonicClock.now()
            let tls = try TLSSession(client: s, credentials: credentials,
                                     verifyName: options.serverName ?? server.host, caFile: files.ca, pin: cell.certificatePin)
            let t1 = MonotonicClock.now()
            try tls.handshake()
            let handshake = MonotonicClock.elapsed(since: t1)
            // The timed set-up is what an application waits for before its first byte:
            // TCP's three-way handshake plus TLS 1.3's one round trip.
            m.connectNanos = tcpConnect + MonotonicClock.elapsed(since: t0)
            var info = tls.description()
            info["tcp_connect_ms"] = .number(tcpConnect.milliseconds)
            info["handshake_ms"] = .number(handshake.milliseconds)
            // The controller in force, set or the host's default (the record's `congestion_control`).
            m.congestionControl = s.congestionControl()
            m.extra["tls"] = .object(info)

            // No HELLO: the TLS handshake already opened the session.
            let workload = StreamWorkloadClient("tls", over: tls)
            let token = try options.reconnect.map { _ in try workload.requestResumption() }
            try workload.probe(count: cell.rttProbes, method: cell.rttMethod, spacingNanos: cell.rttProbeSpacingNanos, into: &m)
            if let payload = cell.payload, payload.count > 0 {
                if let policy = options.reconnect, let token {
                    let resumable = StreamResumableBulk(policy: policy, token: token, deadline: cell.deadline, greeting: nil,
                                                        cancelled: { cell.cancellation.isCancelled }) { timeout in
                        try connectTLS(cell, server: server, options: options, credentials: credentials, files: files, timeoutNanos: timeout)
                    }
                    if let remade = try resumable.run(payload, on: workload, into: &m) {
                        defer { remade.close() }
                        return try remade.workload.goodbye()
                    }
                } else {
                    try withProbeFlow(cell, server: server, options: options, credentials: credentials, files: files) { probeFlow in
                        try workload.bulk(payload, loadedProbes: options.loadedRttProbes, probeFlow: probeFlow, into: &m)
                    }
                }
            }
            try workload.goodbye()
        }
        return m
    }

    /// A re-made connection for `StreamResumableBulk` (`reconnect`): TCP connected within
    /// `timeoutNanos`, then a full TLS handshake (bounded by the same time) over it.
    static func connectTLS(_ cell: CellContext, server: SocketAddress, options: TLSOptions, credentials: GnuTLSCredentials,
                           files: TLSFiles, timeoutNanos: UInt64) throws -> StreamConnection {
        let s = try cell.openStreamConnection(to: server, timeoutNanos: timeoutNanos, configure: { try $0.setUp(options) })
        do {
            try s.setReceiveTimeout(nanoseconds: max(timeoutNanos, 1_000_000))
            let tls = try TLSSession(client: s, credentials: credentials,
                                     verifyName: options.serverName ?? server.host, caFile: files.ca, pin: cell.certificatePin)
            try tls.handshake()
            try cell.applyDeadline(to: s)
            return StreamConnection(workload: StreamWorkloadClient("tls", over: tls), socket: s, connectedAt: MonotonicClock.now()) {
                cell.closeStreamConnection(s)
                withExtendedLifetime(tls) {}
            }
        } catch {
            cell.closeStreamConnection(s)
            throw error
        }
    }

    /// With `loadedRttProbes.flow` `separate`: a second TLS connection to the server,
    /// with its own handshake, for the probes only; else nil.
    static func withProbeFlow(_ cell: CellContext, server: SocketAddress, options: TLSOptions, credentials: GnuTLSCredentials, files: TLSFiles,
                              _ body: (StreamWorkloadClient?) throws -> Void) throws {
        guard options.loadedRttProbes?.flow == .separate else { return try body(nil) }
        try cell.withStreamConnection("tls", to: server, configure: { try $0.setUp(options) }) { s, _ in
            let tls = try TLSSession(client: s, credentials: credentials,
                                     verifyName: options.serverName ?? server.host, caFile: files.ca, pin: cell.certificatePin)
            try tls.handshake()
            try body(StreamWorkloadClient("tls", over: tls))
        }
    }
}

extension TLSSession: ByteStream {
    /// Timeouts surface from `receive` as errors naming the role, so never nil here.
    public func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? { try receive(buffer) }
    /// A peer that went away surfaces as an error from GnuTLS, so never false here.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool { try sendAll(bytes); return true }
    /// The TCP socket, not the TLS session (no close_notify).
    public func shutdown() { shutdownSocket() }
}
