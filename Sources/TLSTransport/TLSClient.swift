import GnuTLSSupport
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchSystem

/// The client side: the standard workload (Core's `StreamWorkloadClient`) over one
/// TLS 1.3 connection; GnuTLS cuts each bulk write into 16 KiB records. With
/// `sessionTickets`, a priming connection comes first and the measured one resumes.
enum TLSClient {
    static func run(_ cell: CellContext, server: SocketAddress, options: TLSOptions) throws -> TransportMeasurement {
        var m = TransportMeasurement()
        let connector = try TLSConnector(cell, server: server, options: options)
        // With reconnect the first connection's own ticket resumes the re-made ones: no priming.
        let priming = options.sessionTickets && options.reconnect == nil ? try connector.prime() : nil
        try connector.connect { tls, timing in
            // The timed set-up is what an application waits for before its first byte:
            // TCP's three-way handshake plus TLS 1.3's one round trip.
            m.connectNanos = timing.total
            var info = tls.description()
            info["tcp_connect_ms"] = .number(timing.tcpConnect.milliseconds)
            info["handshake_ms"] = .number(timing.handshake.milliseconds)
            if let bytes = timing.handshakeBytesReceived { info["handshake_bytes_received"] = JSONValue(Int(bytes)) }
            if let priming {
                info["resumed"] = .bool(tls.isResumed)
                info["priming_connect_ms"] = .number(priming.milliseconds)
                m.resumed = tls.isResumed
            }
            // The controller in force, set or the host's default (the record's `congestion_control`).
            m.congestionControl = tls.congestionControl()
            m.extra["tls"] = .object(info)

            // No HELLO: the TLS handshake already opened the session.
            let workload = StreamWorkloadClient("tls", over: tls, appLoop: cell.appLoop)
            let token = try options.reconnect.map { _ in try workload.requestResumption() }
            try workload.probe(count: cell.rttProbes, method: cell.rttMethod, spacingNanos: cell.rttProbeSpacingNanos, into: &m)
            if cell.workload.streams > 1, let payload = cell.payload {
                try StreamParallelFlows.run(
                    cell.workload, payload: payload, first: workload,
                    open: { try connector.reconnect(timeoutNanos: cell.remainingNanos).0 }, into: &m)
                return try workload.goodbye()
            }
            if !cell.workload.isUpload {
                try workload.run(cell.workload, payload: cell.payload, into: &m)
                return try workload.goodbye()
            }
            guard let payload = cell.payload, payload.count > 0 else { return try workload.goodbye() }
            guard let policy = options.reconnect, let token else {
                try withProbeFlow(connector) { probeFlow in
                    try workload.bulk(
                        payload, loadedProbes: options.loadedRttProbes, probeFlow: probeFlow,
                        writes: BulkWrites(cell.rttMethod), into: &m)
                }
                return try workload.goodbye()
            }
            // sessionTickets: the ticket came in with the probes' echoes; the re-made connections resume it.
            if let store = connector.store, tls.hasReceivedSessionTicket { store.save(try tls.resumptionData()) }
            var resumed: Bool?
            let resumable = StreamResumableBulk(
                policy: policy, token: token, deadline: cell.deadline, greeting: nil,
                cancelled: { cell.cancellation.isCancelled }
            ) { timeout in
                let (connection, wasResumed) = try connector.reconnect(timeoutNanos: timeout)
                if connector.store != nil { resumed = (resumed ?? true) && wasResumed }
                return connection
            }
            let remade = try resumable.run(payload, on: workload, into: &m)
            m.resumed = resumed
            guard let remade else { return try workload.goodbye() }
            defer { remade.close() }
            try remade.workload.goodbye()
        }
        return m
    }

    /// With `loadedRttProbes.flow` `separate`: a second TLS connection to the server,
    /// with its own handshake (resumed with `sessionTickets`), for the probes only; else nil.
    static func withProbeFlow(_ connector: TLSConnector, _ body: (StreamWorkloadClient?) throws -> Void) throws {
        guard connector.options.loadedRttProbes?.flow == .separate else { return try body(nil) }
        try connector.connect { tls, _ in try body(StreamWorkloadClient("tls", over: tls)) }
    }
}

extension TLSSession: ByteStream {
    /// Timeouts surface from `receive` as errors naming the role, so never nil here.
    public func readSome(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int? { try receive(buffer) }
    /// A peer that went away surfaces as an error from GnuTLS, so never false here.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        try sendAll(bytes)
        return true
    }
    /// The TCP socket, not the TLS session (no close_notify).
    public func shutdown() { shutdownSocket() }
}
