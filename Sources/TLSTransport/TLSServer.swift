import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchStreams
import PeerBenchSystem

/// The server side: accepts one TCP connection, runs the TLS handshake and answers
/// the workload — echoes probes, counts DATA, reports the counts after END, closes
/// after GOODBYE. Whatever happens (a failed handshake included) the connection
/// closes when the session ends, so the client learns at once that it is over.
enum TLSServer {
    static func start(_ cell: CellContext, options: TLSOptions) async throws -> SessionServer {
        let files = try options.psk == nil ? TLSFiles(options) : TLSFiles(ca: "", cert: "", key: "")
        let credentials = try TLSCredentials.server(options, files: files)
        // sessionTickets: one key per server, so a later connection of the client (the
        // measured one after the priming one, or a re-made one) can resume an earlier one.
        let ticketKey: TLSSessionTicketKey?
        do {
            ticketKey = options.sessionTickets ? try TLSSessionTicketKey() : nil
        } catch {
            throw TransportError("tls server: \(error)")
        }
        if options.reconnect != nil {
            // Every re-made connection has its own handshake; the DATA count lives across them.
            let host = StreamResumeHost()
            return try await cell.serveResumableConnections("tls", finished: { host.finished }) { conn in
                try serveOne(conn, options: options, credentials: credentials, ticketKey: ticketKey, resume: host, appLoop: cell.appLoop)
            }
        }
        // A separate probe flow (loadedRttProbes.flow) is a second TLS connection, served alike.
        // A separate probe flow and a workload's parallel streams are as many connections.
        return try await cell.serveConnections(
            "tls", count: max(options.loadedRttProbes?.flow == .separate ? 2 : 1, cell.workload.streams),
            primingFirst: options.sessionTickets
        ) { conn in
            try serveOne(conn, options: options, credentials: credentials, ticketKey: ticketKey, resume: nil, appLoop: cell.appLoop)
        }
    }

    /// One connection: handshake, the workload (with `resume`, as part of the client's
    /// resumable session), close_notify.
    private static func serveOne(
        _ conn: Socket, options: TLSOptions, credentials: GnuTLSCredentials, ticketKey: TLSSessionTicketKey?,
        resume: StreamResumeHost?, appLoop: AppLoop
    ) throws {
        try conn.setUp(options)
        let tls = try TLSSession(server: conn, credentials: credentials, ticketKey: ticketKey)
        try tls.handshake()
        try StreamWorkloadServer.serve("tls", over: tls, greeting: nil, resume: resume, appLoop: appLoop)
        tls.bye()  // close_notify: the client reads it as the end of the stream
    }
}
