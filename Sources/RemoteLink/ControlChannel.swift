import GnuTLSSupport
import PeerBenchPlugin
public import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The authenticated control channel between `run --link remote` and `serve`: TLS 1.3
/// over TCP with an external pre-shared key and an (EC)DHE key exchange, carrying the
/// frames of docs/protocol/control.md.
///
/// Blocking, like the rest of PeerBench's I/O: call it from a dedicated thread. One
/// thread may send while another receives; senders are serialised among themselves,
/// and so are receivers. Memory per channel is bounded: GnuTLS holds at most one TLS
/// record, the decoder at most one frame (`ControlFraming.maxFrameSize`).
public final class ControlChannel: Sendable {
    /// How long one `send` may block on a peer that does not read.
    static let sendTimeoutSeconds = 10.0

    /// The other end's address.
    public let peer: SocketAddress
    /// The identity of the key the session was authenticated with.
    public let identity: String
    /// What the handshake negotiated (always TLS 1.3 with ECDHE-PSK or DHE-PSK).
    public let negotiated: Negotiated

    private let socket: Socket
    private let tls: TLSPSKSession
    /// Held for the whole of a `receive`: one receiver at a time, and the decoder's state.
    private let receiver = Mutex(ControlFrameDecoder())
    /// Held for the whole of a `send`: frames never interleave.
    private let sender = Mutex(())
    private let closed = Atomic(false)
    private let pingCounter = Atomic<UInt64>(0)

    /// What the TLS handshake negotiated, by GnuTLS's names.
    public struct Negotiated: Sendable, Equatable {
        public var version: String
        public var keyExchange: String
        public var cipher: String
        public var group: String
        /// The version is TLS 1.3 (by GnuTLS's enum, not its name).
        public var isTLS13: Bool
        /// The key exchange is ECDHE-PSK or DHE-PSK (by GnuTLS's enum), never plain PSK.
        public var isDiffieHellmanPSK: Bool
    }

    private init(socket: Socket, tls: TLSPSKSession, peer: SocketAddress, identity: String) {
        self.socket = socket
        self.tls = tls
        self.peer = peer
        self.identity = identity
        negotiated = tls.negotiated
    }

    deinit { close() }

    /// Connects to `address` and authenticates with `key`; connecting and the handshake
    /// together take at most `timeoutSeconds`.
    /// - Throws: `ControlChannelError`: `.authenticationFailed` when the server does not
    ///   hold the same key and identity, `.timedOut`, `.failed` (refused, unreachable, ...).
    public static func connect(to address: SocketAddress, key: PreSharedKey, timeoutSeconds: Double) throws -> ControlChannel {
        try connect(to: address, key: key, timeoutSeconds: timeoutSeconds, priority: TLSPSKSession.priority)
    }

    /// `connect` with another GnuTLS priority string: tests play a client that offers what
    /// the server must refuse (plain PSK).
    static func connect(to address: SocketAddress, key: PreSharedKey, timeoutSeconds: Double, priority: String) throws -> ControlChannel {
        let deadline = ChannelDeadline(seconds: timeoutSeconds)
        let socket: Socket
        do {
            socket = try Socket(family: address.family, type: Int32(SOCK_STREAM.rawValue))
            // On Linux SO_SNDTIMEO bounds connect(2) as well (EINPROGRESS when it expires).
            try socket.setSendTimeout(nanoseconds: deadline.remainingNanos)
            try socket.connect(address)
        } catch let e as SystemError where [EINPROGRESS, EAGAIN, ETIMEDOUT].contains(e.errno) {
            throw ControlChannelError.timedOut
        } catch let e as SystemError {
            throw ControlChannelError.failed("cannot connect to \(address): \(String(cString: strerror(e.errno)))")
        } catch {
            throw ControlChannelError.failed("cannot connect to \(address): \(error)")
        }
        do {
            try setUp(socket)
            let tls = try TLSPSKSession(role: .client, fd: socket.fd, key: key, priority: priority)
            try tls.handshake(socket: socket, deadline: deadline)
            return try checked(ControlChannel(socket: socket, tls: tls, peer: address, identity: key.identity))
        } catch {
            socket.close()
            throw error
        }
    }

    /// Runs the server side of the handshake on an accepted connection. A client that
    /// sends something other than a TLS ClientHello, holds another key, or stalls fails
    /// within `handshakeTimeoutSeconds`; the connection is closed then.
    /// - Throws: `ControlChannelError` (`.authenticationFailed`, `.timedOut`, `.failed`).
    public static func accept(_ connection: Socket, key: PreSharedKey, handshakeTimeoutSeconds: Double) throws -> ControlChannel {
        try accept(connection, key: key, handshakeTimeoutSeconds: handshakeTimeoutSeconds, priority: TLSPSKSession.priority)
    }

    /// `accept` with another GnuTLS priority string: tests play a misconfigured server.
    static func accept(_ connection: Socket, key: PreSharedKey, handshakeTimeoutSeconds: Double, priority: String) throws -> ControlChannel {
        let deadline = ChannelDeadline(seconds: handshakeTimeoutSeconds)
        do {
            let peer = try peerAddress(of: connection)
            try setUp(connection)
            let tls = try TLSPSKSession(role: .server, fd: connection.fd, key: key, priority: priority)
            try tls.handshake(socket: connection, deadline: deadline)
            return try checked(ControlChannel(socket: connection, tls: tls, peer: peer, identity: tls.clientIdentity ?? key.identity))
        } catch {
            connection.close()
            throw error
        }
    }

    /// Sends one message (one frame).
    /// - Throws: `ControlChannelError`: `.protocolError` when the message cannot be framed
    ///   (too large), `.timedOut` when the peer does not read, `.closed`, `.failed`.
    public func send(_ message: ControlMessage) throws {
        let frame: [UInt8]
        do throws(ControlProtocolError) { frame = try ControlFraming.encode(message) } catch { throw ControlChannelError.protocolError(error) }
        try write(frame)
    }

    /// Sends bytes through TLS as they are: one whole frame from `send`, or anything at
    /// all from a test that plays a misbehaving peer.
    func write(_ frame: [UInt8]) throws(ControlChannelError) {
        try sender.withLock { _ throws(ControlChannelError) in
            guard !closed.load(ordering: .acquiring) else { throw .closed }
            let deadline = ChannelDeadline(seconds: Self.sendTimeoutSeconds)
            var off = 0
            while off < frame.count {
                // After `.again` the same call is repeated with the same data, as GnuTLS requires.
                let sent = try io {
                    frame.withUnsafeBytes { b in
                        Result { () throws(GnuTLSError) in try tls.session.send(UnsafeRawBufferPointer(rebasing: b[off...])) }
                    }
                }
                switch sent {
                case .success(let n): off += n
                case .failure(let error) where error.code == .again: try TLSPSKSession.waitReady(socket, writing: true, deadline: deadline)
                case .failure(let error): throw failure("sending", error)
                }
            }
        }
    }

    /// The next message from the peer, waiting at most `timeoutSeconds`. A PING is
    /// answered with its PONG here and not returned (so a peer waiting for the next
    /// request still answers RTT probes); the wait's limit stays the same, unless
    /// `pingRestartsWait` (an idle timeout: a pinging peer is not idle).
    /// - Throws: `ControlChannelError`: `.timedOut`, `.closed` when the peer closed
    ///   between frames, `.protocolError` for a malformed frame (the channel is unusable
    ///   afterwards: close it), `.failed`.
    public func receive(timeoutSeconds: Double, pingRestartsWait: Bool = false) throws -> ControlMessage {
        var deadline = ChannelDeadline(seconds: timeoutSeconds)
        while true {
            let message = try receiveFrame(deadline: deadline)
            if case .ping(let value) = message {
                try send(.pong(value))
                if pingRestartsWait { deadline = ChannelDeadline(seconds: timeoutSeconds) }
                continue
            }
            return message
        }
    }

    /// Sends TLS close_notify (best effort, bounded) and closes the socket; a thread
    /// blocked in `receive` or `send` returns at once with `.closed`. Idempotent.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The socket is non-blocking: a peer that does not read cannot hold up close().
        // A frame another thread is sending must not be cut by an alert record, so
        // close_notify only when none is.
        _ = sender.withLockIfAvailable { _ in
            try? socket.withDescriptor("gnutls_bye") { _ in tls.session.bye() }
        }
        socket.close()
    }

    // MARK: - Internals

    private func receiveFrame(deadline: ChannelDeadline) throws(ControlChannelError) -> ControlMessage {
        try receiver.withLock { decoder throws(ControlChannelError) in
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                guard !closed.load(ordering: .acquiring) else { throw .closed }
                // Never read past the frame being assembled: at most one frame is ever buffered here.
                let want = min(decoder.bytesWanted, buffer.count)
                let received = try io {
                    buffer.withUnsafeMutableBytes { b in
                        Result { () throws(GnuTLSError) in try tls.session.receive(into: UnsafeMutableRawBufferPointer(rebasing: b[..<want])) }
                    }
                }
                switch received {
                case .success(let n) where n > 0:
                    let messages: [ControlMessage]
                    do throws(ControlProtocolError) { messages = try decoder.feed(buffer[..<n]) } catch { throw .protocolError(error) }
                    if let message = messages.first { return message }
                case .failure(let error) where error.code == .again:
                    try TLSPSKSession.waitReady(socket, writing: false, deadline: deadline)
                case .success:
                    // The end of the stream: close_notify, or the connection closed without one.
                    if closed.load(ordering: .acquiring) { throw .closed }
                    do throws(ControlProtocolError) { try decoder.finish() } catch { throw .protocolError(error) }
                    throw .closed
                case .failure(let error):
                    throw failure("receiving", error)
                }
            }
        }
    }

    /// A PING value not used before on this channel.
    func nextPingValue() -> UInt64 { pingCounter.wrappingAdd(1, ordering: .relaxed).newValue }

    /// Runs a GnuTLS call that reads or writes the socket, with the descriptor counted in
    /// flight: `close()` from another thread shuts it down but never releases it under
    /// GnuTLS's feet. After `close()`, `.closed`; GnuTLS's own outcome otherwise.
    private func io<T>(_ body: () -> Result<T, GnuTLSError>) throws(ControlChannelError) -> Result<T, GnuTLSError> {
        do { return try socket.withDescriptor("gnutls") { _ in body() } } catch { throw .closed }
    }

    private func failure(_ what: String, _ error: GnuTLSError) -> ControlChannelError {
        if closed.load(ordering: .acquiring) { return .closed }
        if error.code == .pushFailed || error.code == .pullFailed { return .closed }
        return .failed("\(what) failed: \(error.message)")
    }

    /// The priority string allows nothing else, but a session that is not TLS 1.3 with an
    /// (EC)DHE-PSK exchange must never carry a message, whatever a GnuTLS update does.
    private static func checked(_ channel: ControlChannel) throws(ControlChannelError) -> ControlChannel {
        let n = channel.negotiated
        guard n.isTLS13 && n.isDiffieHellmanPSK else {
            channel.close()
            throw .failed("the handshake negotiated \(n.version) with \(n.keyExchange); only TLS 1.3 with ECDHE-PSK or DHE-PSK is allowed")
        }
        return channel
    }

    /// No Nagle (control messages are small and PING/PONG measures latency on them), and
    /// non-blocking: every wait is a poll bounded by a deadline (`TLSPSKSession.waitReady`).
    private static func setUp(_ socket: Socket) throws(ControlChannelError) {
        do {
            try socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY")
            try socket.withDescriptor("fcntl(O_NONBLOCK)") { fd throws(SystemError) in
                let flags = try syscall("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
                try syscall("fcntl(O_NONBLOCK)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
            }
        } catch {
            throw .failed("\(error)")
        }
    }

    private static func peerAddress(of socket: Socket) throws(ControlChannelError) -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let r = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket.fd, $0, &len) }
        }
        guard r == 0, let address = SocketAddress(storage: storage) else {
            throw .failed("getpeername failed: \(String(cString: strerror(errno)))")
        }
        return address
    }
}

/// A point in time on the monotonic clock that a chain of blocking calls must not pass.
struct ChannelDeadline {
    let at: UInt64
    init(seconds: Double) { at = MonotonicClock.now() &+ UInt64(max(0, seconds) * 1e9) }
    var remainingNanos: UInt64 {
        let now = MonotonicClock.now()
        return at > now ? at - now : 0
    }
}
