import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchStreams

/// The server side: accepts one connection (two with a separate probe flow), echoes
/// probes, counts DATA, answers END with a REPORT, and ends at GOODBYE. With
/// `reconnect` it accepts the client's re-made connections too, and the DATA count
/// lives across them (`StreamResumeHost`).
enum TCPServer {
    static func start(_ cell: CellContext, options: TCPOptions) async throws -> any TransportServer {
        if options.reconnect != nil {
            let host = StreamResumeHost()
            return try await cell.serveResumableConnections("tcp", finished: { host.finished }) { conn in
                try options.apply(to: conn)
                try StreamWorkloadServer.serve(
                    "tcp", over: options.stream(over: conn), greeting: TCPHello.greeting, resume: host, appLoop: cell.appLoop)
            }
        }
        // A separate probe flow (loadedRttProbes.flow) is a second connection, served alike.
        // A workload's parallel streams are as many connections.
        let count = max(options.loadedRttProbes?.flow == .separate ? 2 : 1, cell.workload.streams)
        return try await cell.serveConnections("tcp", count: count) { conn in
            try options.apply(to: conn)
            try StreamWorkloadServer.serve("tcp", over: options.stream(over: conn), greeting: TCPHello.greeting, appLoop: cell.appLoop)
        }
    }
}
