import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchSystem
import PeerBenchWorkloads

/// A stream server (loopback, real sockets) that speaks the standard workload until
/// the bulk phase and then goes away the way a stopped plugin server does
/// (`SessionServer.stop()`): it stops reading, shuts its socket down in both
/// directions, reads what its kernel had already queued until the end of stream,
/// and closes.
///
/// Nothing is left unread at the close, so its kernel sends a FIN but no RST; its
/// receive window was full when it stopped and, shut down for reading, it never
/// opens it again. A client blocked in send() then learns that the server is gone
/// only by reading the FIN: the kernel itself would keep it blocked until the send
/// timeout (the cell deadline, restarted by a partial write) or until the server's
/// orphaned socket expires (110 s measured with a plain socket pair).
/// A real stopped server resets instead when it gives up with bytes still unread
/// (its echo of a probe fails and it closes); whether any are left depends on where
/// in its buffer that probe was, so the plugin servers' own `stop()` shows the hang
/// only now and then, under load. This server shows it every time.
public final class VanishingStreamServer: @unchecked Sendable {
    public let address: SocketAddress
    private let listener: Socket
    private let done = DispatchSemaphore(value: 0)
    // Written by the server thread before `done` is signalled, read after.
    private var failure: (any Error)?

    /// Listens on 127.0.0.1; in the background accepts one client, `open`s its
    /// session on the connection (a TLS handshake, or the socket itself), answers the
    /// `greeting` frame with it when given (TCP's HELLO), echoes `probes` PROBEs,
    /// lets the bulk phase fill the buffers for `stallMillis`, and goes away.
    public init(
        greeting: [UInt8]?, probes: Int, stallMillis: Int = 500,
        open: @escaping @Sendable (Socket) throws -> any ByteStream = { $0 }
    ) throws {
        listener = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        try listener.bind(SocketAddress(host: "127.0.0.1", port: 0))
        try listener.listen(backlog: 1)
        address = try listener.localAddress()
        let thread = Thread { [self] in
            do { try serve(greeting: greeting, probes: probes, stallMillis: stallMillis, open: open) } catch { failure = error }
            done.signal()
        }
        thread.name = "vanishing server"
        thread.start()
    }

    private func serve(
        greeting: [UInt8]?, probes: Int, stallMillis: Int,
        open: (Socket) throws -> any ByteStream
    ) throws {
        defer { listener.close() }
        try listener.setReceiveTimeout(nanoseconds: 20_000_000_000)
        guard let connection = try listener.accept() else { throw TransportError("vanishing server: no client came") }
        defer { connection.close() }
        try connection.setReceiveTimeout(nanoseconds: 20_000_000_000)
        let stream = try open(connection)
        let reader = StreamFrameReader(stream)
        var ignored = ReceivedMessages()
        func next() throws -> (type: MessageType, body: [UInt8]) {
            guard let frame = try reader.nextControl(counting: &ignored) else { throw TransportError("vanishing server: the client closed") }
            return (frame.type, Array(frame.body))
        }
        if let greeting {
            guard try next().type == .hello else { throw TransportError("vanishing server: expected HELLO") }
            _ = try greeting.withUnsafeBytes { try stream.writeAll($0) }
        }
        for _ in 0..<probes {
            let probe = try next()
            guard probe.type == .probe else { throw TransportError("vanishing server: expected PROBE, got \(probe.type)") }
            var echo = [UInt8](repeating: 0, count: StreamFraming.headerSize)
            echo.withUnsafeMutableBytes { StreamFraming.writeHeader(.echo, bodyLength: probe.body.count, to: $0.baseAddress!) }
            _ = try (echo + probe.body).withUnsafeBytes { try stream.writeAll($0) }
        }
        // The bulk phase: read nothing, so the client's writes fill both buffers and block.
        usleep(useconds_t(stallMillis * 1_000))
        connection.shutdown()
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { scratch.deallocate() }
        while let n = try connection.receive(scratch), n > 0 {}
    }

    /// Waits until the server has gone away; rethrows what went wrong before that.
    public func finish() throws {
        done.wait()
        if let failure { throw failure }
    }
}
