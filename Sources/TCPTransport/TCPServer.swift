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
            try session(conn)
        } catch {
            if stopped() { return }
            throw error
        }
    }

    private static func session(_ conn: Socket) throws {
        let reader = StreamFrameReader(conn)
        reader.waitingFor = "the client's next frame"
        var count = StreamDataCount()
        var greeted = false
        var echo = [UInt8](repeating: 0, count: StreamFraming.headerSize + StreamFraming.maxControlBody)
        while let frame = try reader.nextControl(counting: &count) {
            switch frame.type {
            case .hello:
                guard TCPHello.isHello(frame.body) else {
                    throw TransportError("tcp server: the client's HELLO is not PeerBench TCP protocol version \(TCPHello.version)")
                }
                greeted = true
                guard try TCPHello.frame().withUnsafeBytes({ try conn.sendAll($0) }) else {
                    throw TransportError("tcp server: the client closed the connection after HELLO")
                }
            case .probe:
                // Echo the body unchanged; the client matches sequence and timestamp.
                let n = StreamFraming.headerSize + frame.body.count
                echo.withUnsafeMutableBytes { out in
                    StreamFraming.writeHeader(.echo, bodyLength: frame.body.count, to: out.baseAddress!)
                    out.baseAddress!.advanced(by: StreamFraming.headerSize).copyMemory(from: frame.body.baseAddress!, byteCount: frame.body.count)
                }
                guard try echo.withUnsafeBytes({ try conn.sendAll(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }) else {
                    throw TransportError("tcp server: the client closed the connection during the RTT probes")
                }
            case .end:
                let report = StreamFraming.controlFrame(.report, [UInt64(count.messages), UInt64(count.bytes)])
                guard try report.withUnsafeBytes({ try conn.sendAll($0) }) else {
                    throw TransportError("tcp server: the client closed the connection before the REPORT")
                }
            case .goodbye:
                // Closing (by returning) is the answer: the client waits for end of stream.
                return
            case .echo, .report, .data:
                throw TransportError("tcp server: unexpected \(frame.type) frame from the client")
            }
            if !greeted { throw TransportError("tcp server: the client did not start with HELLO") }
        }
        throw TransportError("tcp server: the client closed the connection without GOODBYE")
    }
}
