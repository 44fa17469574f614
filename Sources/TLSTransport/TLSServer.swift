#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PeerBenchCore

/// The server side: accepts one TCP connection, runs the TLS handshake and answers
/// the workload — echoes probes, counts DATA, reports the counts after END, closes
/// after GOODBYE.
final class TLSServer: TransportServer, @unchecked Sendable {
    let address: SocketAddress
    private let listener: Socket
    private let session: Task<Void, any Error>
    private let connection: ConnectionBox

    private init(address: SocketAddress, listener: Socket, session: Task<Void, any Error>, connection: ConnectionBox) {
        self.address = address
        self.listener = listener
        self.session = session
        self.connection = connection
    }

    static func start(_ cell: CellContext, options: TLSOptions) async throws -> TLSServer {
        let files = try options.psk == nil ? TLSFiles(options) : TLSFiles(ca: "", cert: "", key: "")
        let credentials = try TLSCredentials(serverWith: options, files: files)
        let host = cell.server.address
        let (listener, address) = try await cell.server.run("tls-listen") { () throws -> (Socket, SocketAddress) in
            let probe = SocketAddress(host: host, port: 0)
            let s = try Socket(family: probe.family, type: Int32(SOCK_STREAM.rawValue))
            try s.setReuseAddress()
            try s.bind(probe)
            try s.listen(backlog: 1)
            try s.setReceiveTimeout(nanoseconds: max(cell.remainingNanos, 1_000_000))
            return (s, try s.localAddress())
        }
        cell.cancellation.register(listener)
        let box = ConnectionBox()
        let task = Task {
            try await cell.server.run("tls-server") {
                defer { cell.cancellation.unregister(listener) }
                guard let conn = try listener.accept() else { throw TransportError("tls server: no client connected before the cell deadline") }
                // The listener stays open until this server is released: closing it here
                // would let a later stop() shut down whatever socket reuses its fd number.
                box.set(conn)
                cell.cancellation.register(conn)
                // Whatever happens, the client learns the session is over (FIN) at once.
                defer { conn.shutdown(); cell.cancellation.unregister(conn) }
                try conn.prepareForTLS(noDelay: options.noDelay, cell: cell)
                let tls = try TLSSession(server: conn, credentials: credentials, options: options)
                try tls.handshake()
                try serve(tls)
            }
        }
        return TLSServer(address: address, listener: listener, session: task, connection: box)
    }

    private static func serve(_ tls: TLSSession) throws {
        let reader = TLSFrameReader(tls)
        while let frame = try reader.next() {
            switch frame.type {
            case .probe:
                var echo = [UInt8](repeating: 0, count: TLSFraming.headerSize + frame.body.count)
                echo.withUnsafeMutableBytes { p in
                    TLSFraming.writeHeader(.echo, bodyLength: frame.body.count, to: p.baseAddress!)
                    p.baseAddress!.advanced(by: TLSFraming.headerSize).copyMemory(from: frame.body.baseAddress!, byteCount: frame.body.count)
                }
                try echo.withUnsafeBytes { try tls.sendAll($0) }
            case .end:
                let report = TLSFraming.control(.report, [UInt64(reader.messages), UInt64(reader.bytes)])
                reader.messages = 0
                reader.bytes = 0
                try report.withUnsafeBytes { try tls.sendAll($0) }
            case .goodbye:
                tls.bye()
                return
            case .echo, .report, .data:
                throw TransportError("tls server: unexpected \(frame.type) frame from the client")
            }
        }
        throw TransportError("tls server: the client closed the stream without GOODBYE")
    }

    func finish() async throws { try await session.value }

    func stop() {
        listener.shutdown()
        connection.shutdown()
    }
}

/// The accepted connection, so `stop()` can unblock the session thread.
private final class ConnectionBox: @unchecked Sendable {
    private let lock = NSLock()
    private var socket: Socket?
    private var stopped = false
    func set(_ s: Socket) {
        let stop = lock.withLock { socket = s; return stopped }
        if stop { s.shutdown() }
    }
    func shutdown() {
        let s = lock.withLock { stopped = true; return socket }
        s?.shutdown()
    }
}
