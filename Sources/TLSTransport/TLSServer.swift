#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

/// The server side: accepts one TCP connection, runs the TLS handshake and answers
/// the workload — echoes probes, counts DATA, reports the counts after END, closes
/// after GOODBYE.
enum TLSServer {
    static func start(_ cell: CellContext, options: TLSOptions) async throws -> SessionServer {
        let files = try options.psk == nil ? TLSFiles(options) : TLSFiles(ca: "", cert: "", key: "")
        let credentials = try TLSCredentials(serverWith: options, files: files)
        let host = cell.server.address
        // `stop()` cancels this stopper, which shuts down the sockets tracked with it.
        let stopper = CellCancellation()
        let (listener, address) = try await cell.server.run("tls-listen") { () throws -> (Socket, SocketAddress) in
            let wanted = SocketAddress(host: host, port: 0)
            let s = try Socket(family: wanted.family, type: Int32(SOCK_STREAM.rawValue))
            try s.setReuseAddress()
            try s.bind(wanted)
            try s.listen(backlog: 1)
            try cell.applyDeadline(to: s)
            return (s, try s.localAddress())
        }
        cell.track(listener, stopper)
        let task = Task {
            try await cell.server.run("tls-server") {
                defer { cell.untrack(listener, stopper) }
                guard let conn = try listener.accept() else { throw TransportError("tls server: no client connected before the cell deadline") }
                cell.track(conn, stopper)
                // Whatever happens (a failed handshake included), the client learns at
                // once that the session is over instead of waiting for the deadline.
                defer { conn.shutdown(); cell.untrack(conn, stopper) }
                try conn.prepareForTLS(noDelay: options.noDelay, cell: cell)
                let tls = try TLSSession(server: conn, credentials: credentials, options: options)
                try tls.handshake()
                try StreamWorkloadServer.serve("tls", over: tls, greeting: nil)
                tls.bye()  // close_notify: the client reads it as the end of the stream
            }
        }
        return SessionServer(address: address, stopper: stopper, task: task)
    }
}
