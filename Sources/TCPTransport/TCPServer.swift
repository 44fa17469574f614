import PeerBenchCore

/// The server side: accepts one connection, echoes probes, counts DATA, answers END
/// with a REPORT, and ends at GOODBYE.
enum TCPServer {
    static func start(_ cell: CellContext, options: TCPOptions) async throws -> any TransportServer {
        try await cell.serveOneConnection("tcp") { conn in
            try options.apply(to: conn)
            try StreamWorkloadServer.serve("tcp", over: conn, greeting: TCPHello.greeting)
        }
    }
}
