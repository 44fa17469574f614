import PeerBenchPlugin

/// The server side: accepts one connection (two with a separate probe flow), echoes
/// probes, counts DATA, answers END with a REPORT, and ends at GOODBYE.
enum TCPServer {
    static func start(_ cell: CellContext, options: TCPOptions) async throws -> any TransportServer {
        // A separate probe flow (loadedRttProbes.flow) is a second connection, served alike.
        try await cell.serveConnections("tcp", count: options.loadedRttProbes?.flow == .separate ? 2 : 1) { conn in
            try options.apply(to: conn)
            try StreamWorkloadServer.serve("tcp", over: conn, greeting: TCPHello.greeting)
        }
    }
}
