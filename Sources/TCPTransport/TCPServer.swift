#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

/// The server side: accepts one connection, echoes probes, counts DATA, answers END
/// with a REPORT, and ends at GOODBYE.
enum TCPServer {
    static func start(_ cell: CellContext, options: TCPOptions) async throws -> any TransportServer {
        let stopper = CellCancellation()
        let listener = try await cell.server.run("tcp-listen") { () throws -> Socket in
            let bindAddress = SocketAddress(host: cell.server.address, port: 0)
            let s = try Socket(family: bindAddress.family, type: Int32(SOCK_STREAM.rawValue))
            try s.setReuseAddress()
            try s.bind(bindAddress)
            try s.listen(backlog: 1)
            return s
        }
        cell.track(listener, stopper)
        let address = try listener.localAddress()
        let task = Task<Void, any Error> {
            defer { cell.untrack(listener, stopper) }
            try await cell.server.run("tcp-server") {
                try serve(listener, cell: cell, options: options, stopper: stopper)
            }
        }
        return SessionServer(address: address, stopper: stopper, task: task)
    }

    private static func serve(_ listener: Socket, cell: CellContext, options: TCPOptions, stopper: CellCancellation) throws {
        let stopped = { stopper.isCancelled || cell.cancellation.isCancelled }
        let conn: Socket
        do {
            try cell.applyDeadline(to: listener)
            guard let c = try listener.accept() else { throw TransportError("tcp server: no client connected before the cell deadline") }
            conn = c
        } catch {
            if stopped() { return }
            throw error
        }
        cell.track(conn, stopper)
        defer { cell.untrack(conn, stopper) }
        do {
            try options.apply(to: conn)
            try cell.applyDeadline(to: conn)
            try StreamWorkloadServer.serve("tcp", over: conn, greeting: TCPHello.greeting)
        } catch {
            if stopped() { return }
            throw error
        }
    }
}
