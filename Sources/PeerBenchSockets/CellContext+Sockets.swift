import Foundation
import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A thread whose outcome its starter collects with `join` (a server's first session
/// while the next connection is awaited on the starter's own thread).
final class JoinableThread: Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Set by the thread before `done` is signalled, read after.
    private let failure = Mutex<(any Error)?>(nil)

    init(_ name: String, _ body: @escaping @Sendable () throws -> Void) {
        CPUAccount.startThread(name) { [self] in
            do { try body() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
    }

    /// Waits for the body to end; rethrows its error.
    func join() throws {
        done.wait()
        if let failure = failure.withLock({ $0 }) { throw failure }
    }
}

/// Socket lifetimes under the cell's cancellation. A plugin opens a socket and hands
/// it to one of these scopes; the scope registers it with the runner's cancellation
/// (and a server's own stopper), sets its timeouts at the cell's deadline, and when
/// the body returns unregisters and closes it. `Socket.close` is safe while another
/// thread still uses or shuts down the socket, so no plugin has to reason about that.
extension CellContext {
    /// Runs `body` with `socket` registered for cancellation (the cell's, and
    /// `stopper`'s when given) and its send/receive timeouts at the cell's deadline;
    /// afterwards unregisters and closes it.
    public func withSocket<T>(_ socket: Socket, stopper: CellCancellation? = nil, _ body: (Socket) throws -> T) throws -> T {
        track(socket, stopper)
        defer { release(socket, stopper) }
        try applyDeadline(to: socket)
        return try body(socket)
    }

    /// `withSocket` for a body that awaits (a socket that lives across `Endpoint.run` calls).
    public func withSocket<T>(_ socket: Socket, stopper: CellCancellation? = nil, _ body: (Socket) async throws -> T) async throws -> T {
        track(socket, stopper)
        defer { release(socket, stopper) }
        try applyDeadline(to: socket)
        return try await body(socket)
    }

    private func release(_ socket: Socket, _ stopper: CellCancellation?) {
        untrack(socket, stopper)
        socket.close()
    }

    /// Waits on `listener` for one client until the cell's deadline (the listener's
    /// receive timeout); throws naming `who` when none came. A connection from an
    /// address the server endpoint does not admit (see `Endpoint.allowedPeer`; its
    /// kernel filter normally stops it first) is closed and the wait goes on.
    public func acceptOne(on listener: Socket, _ who: String) throws -> Socket {
        while true {
            try applyDeadline(to: listener)
            guard let connection = try listener.accept() else {
                throw TransportError("\(who): no client connected before the cell deadline")
            }
            if server.allowedPeer == nil { return connection }
            if let peer = try? connection.remoteAddress(), server.admits(peer.host) { return connection }
            connection.close()
        }
    }

    /// A stream server in the standard shape: listens on the server endpoint (port
    /// chosen by the kernel) and returns at once; in the background it accepts one
    /// connection and runs `session` on it, both sockets scoped as in `withSocket`.
    /// `stop()` shuts them down; an error caused by that stop (or the cell's
    /// cancellation) is not the session's failure, so `finish()` does not throw it.
    public func serveOneConnection(_ transport: String, _ session: @escaping @Sendable (Socket) throws -> Void) async throws -> SessionServer {
        try await serveConnections(transport, count: 1, session)
    }

    /// `serveOneConnection` for up to `count` connections of one client, each with its
    /// own `session`, at the same time (the second a separate probe flow,
    /// `loadedRttProbes.flow` `separate`, a workload's parallel `streams`). Each session
    /// runs on its own thread while the next connection is awaited; when it ends no further connection is
    /// awaited (a client that opens fewer is fine). An error of any session fails `finish()`.
    /// With `primingFirst`, one more connection comes before those and is served to its
    /// end first: a client's priming connection (e.g. fetching a TLS session ticket).
    public func serveConnections(
        _ transport: String, count: Int, primingFirst: Bool = false,
        _ session: @escaping @Sendable (Socket) throws -> Void
    ) async throws -> SessionServer {
        let stopper = CellCancellation()
        let cell = self
        let (listener, address) = try await listen(transport, backlog: Int32(count + (primingFirst ? 1 : 0)), stopper: stopper)
        return serveInBackground(transport, address: address, stopper: stopper) {
            if primingFirst {
                // The listener stays open (tracked above) for the connections that follow.
                let priming = try cell.acceptOne(on: listener, "\(transport) server (priming connection)")
                try cell.withSocket(priming, stopper: stopper, session)
            }
            guard count > 1 else {
                let connection = try cell.withSocket(listener, stopper: stopper) { try cell.acceptOne(on: $0, "\(transport) server") }
                try cell.withSocket(connection, stopper: stopper, session)
                return
            }
            try cell.withSocket(listener, stopper: stopper) { listener in
                let first = try cell.acceptOne(on: listener, "\(transport) server")
                let main = JoinableThread("\(transport) session") {
                    defer { listener.shutdown() }  // no more connections once the client's session ended
                    try cell.withSocket(first, stopper: stopper, session)
                }
                // Every further flow on a thread of its own: parallel streams run at once.
                var others: [JoinableThread] = []
                for _ in 1..<count {
                    // acceptOne, so the other flows are held to the same admitted peer as the first.
                    guard let next = try? cell.acceptOne(on: listener, "\(transport) server") else { break }
                    others.append(JoinableThread("\(transport) session") { try cell.withSocket(next, stopper: stopper, session) })
                }
                var failure: (any Error)?
                for other in others {
                    do { try other.join() } catch { failure = failure ?? error }
                }
                try main.join()
                if let failure { throw failure }
            }
        }
    }

    /// The server of a client with `reconnect`: every connection the client opens
    /// (up to 1 + `ReconnectPolicy.maxReconnects`) runs `session` on its own thread,
    /// and connections are accepted until `finished()` (the client's GOODBYE: the
    /// session that saw it stops the listener) or the cell's deadline. A session that
    /// failed is the server's failure only when no session ended with GOODBYE: a
    /// connection the client lost and replaced is expected to fail.
    public func serveResumableConnections(
        _ transport: String, finished: @escaping @Sendable () -> Bool,
        _ session: @escaping @Sendable (Socket) throws -> Void
    ) async throws -> SessionServer {
        let cell = self
        return try await serveListener(transport, backlog: 4) { listener, stopper in
            var threads: [JoinableThread] = []
            for i in 0...ReconnectPolicy.maxReconnects {
                let next: Socket
                if i == 0 {
                    next = try cell.acceptOne(on: listener, "\(transport) server")
                } else {
                    guard !finished(), let another = try? cell.acceptOne(on: listener, "\(transport) server") else { break }
                    next = another
                }
                threads.append(
                    JoinableThread("\(transport) session") {
                        defer { if finished() { listener.shutdown() } }
                        try cell.withSocket(next, stopper: stopper, session)
                    })
            }
            var failure: (any Error)?
            for thread in threads {
                do { try thread.join() } catch { failure = error }
            }
            if let failure, !finished() { throw failure }
        }
    }

    /// A listening socket on the server endpoint and, in the background, `serve` with
    /// it scoped as in `withSocket`; errors after `stop()` or the cell's cancellation
    /// are not the server's failure.
    private func serveListener(
        _ transport: String, backlog: Int32,
        _ serve: @escaping @Sendable (Socket, CellCancellation) throws -> Void
    ) async throws -> SessionServer {
        let stopper = CellCancellation()
        let cell = self
        let (listener, address) = try await listen(transport, backlog: backlog, stopper: stopper)
        return serveInBackground(transport, address: address, stopper: stopper) {
            try cell.withSocket(listener, stopper: stopper) { try serve($0, stopper) }
        }
    }

    /// A listening socket on the server endpoint (port chosen by the kernel), tracked
    /// for `stopper`, and its address.
    private func listen(_ transport: String, backlog: Int32, stopper: CellCancellation) async throws -> (Socket, SocketAddress) {
        let cell = self
        let listener = try await server.run("\(transport)-listen") { () throws -> Socket in
            let s = try Socket(family: SocketAddress(host: cell.server.address, port: 0).family, type: Int32(SOCK_STREAM.rawValue))
            do {
                try s.setReuseAddress()
                _ = try cell.server.bindServer(s)
                try s.listen(backlog: backlog)
            } catch {
                s.close()
                throw error
            }
            return s
        }
        let address: SocketAddress
        do {
            address = try listener.localAddress()
        } catch {
            listener.close()
            throw error
        }
        track(listener, stopper)
        return (listener, address)
    }

    /// Runs `body` on the server endpoint in the background; an error after `stop()` or
    /// the cell's cancellation is not the server's failure.
    private func serveInBackground(
        _ transport: String, address: SocketAddress, stopper: CellCancellation,
        _ body: @escaping @Sendable () throws -> Void
    ) -> SessionServer {
        let cell = self
        let task = Task<Void, any Error> {
            try await cell.server.run("\(transport)-server") {
                do { try body() } catch {
                    if stopper.isCancelled || cell.cancellation.isCancelled { return }
                    throw error
                }
            }
        }
        return SessionServer(address: address, stopper: stopper, task: task)
    }

    /// A re-made connection of a stream client (`reconnect`): a TCP socket from the
    /// client endpoint (call on the client's thread, inside `client.run`), tracked for
    /// the cell's cancellation, `configure`d, and connected within `timeoutNanos` (its
    /// send timeout: a SYN into a dead link gives up then); afterwards its timeouts are
    /// at the cell's deadline. The caller closes it with `closeStreamConnection`.
    public func openStreamConnection(
        to server: SocketAddress, timeoutNanos: UInt64,
        configure: (Socket) throws -> Void = { _ in }
    ) throws -> Socket {
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        track(s)
        do {
            try configure(s)
            try s.setReceiveTimeout(nanoseconds: Swift.max(Swift.min(timeoutNanos, remainingNanos), 1_000_000))
            try s.setSendTimeout(nanoseconds: Swift.max(Swift.min(timeoutNanos, remainingNanos), 1_000_000))
            try s.connect(server)
            try applyDeadline(to: s)
            return s
        } catch let e as SystemError where e.errno == EINPROGRESS {
            // What a blocking connect says when its send timeout expired.
            closeStreamConnection(s)
            throw TransportError("connect to \(server) timed out after \(timeoutNanos / 1_000_000) ms")
        } catch {
            closeStreamConnection(s)
            throw error
        }
    }

    /// Forgets and closes a socket of `openStreamConnection`.
    public func closeStreamConnection(_ socket: Socket) {
        untrack(socket)
        socket.close()
    }

    /// The client's connection of a stream transport: a TCP socket from the client
    /// endpoint (call inside `client.run`), `configure`d before connecting, connected
    /// to `server` with the set-up timed, then `body` with it scoped as in
    /// `withSocket`. An error after the cell's cancellation says so, naming `transport`.
    public func withStreamConnection<T>(
        _ transport: String, to server: SocketAddress, configure: (Socket) throws -> Void = { _ in },
        _ body: (_ socket: Socket, _ connectNanos: UInt64) throws -> T
    ) throws -> T {
        let s = try Socket(family: server.family, type: Int32(SOCK_STREAM.rawValue))
        do {
            return try withSocket(s) { s in
                try configure(s)
                let t0 = MonotonicClock.now()
                try s.connect(server)
                return try body(s, MonotonicClock.elapsed(since: t0))
            }
        } catch {
            if cancellation.isCancelled { throw TransportError("\(transport) client cancelled at the cell deadline (\(error))") }
            throw error
        }
    }

    /// Registers `socket` with the runner's cancellation and, if given, a server's own
    /// stopper, so either can unblock it. Prefer the scopes above, which also unregister.
    public func track(_ socket: Socket, _ stopper: CellCancellation? = nil) {
        markServiceClass(socket)
        cancellation.register(socket)
        stopper?.register(socket)
    }

    /// Marks `socket` with the cell's service class (DSCP and SO_PRIORITY). `track` and
    /// every scope above do it; a plugin that opens a socket outside them calls this.
    /// A refusal (a kernel without the option) is logged, not fatal: the cell still runs.
    public func markServiceClass(_ socket: Socket) {
        do { try socket.setServiceClass(wifi.serviceClass) } catch {
            logger.warning("cannot mark socket with service class \(wifi.serviceClass.rawValue): \(error)")
        }
    }

    /// Forgets `socket` again; the scopes above do this for you.
    public func untrack(_ socket: Socket, _ stopper: CellCancellation? = nil) {
        cancellation.unregister(socket)
        stopper?.unregister(socket)
    }

    /// Sets receive and send timeouts to the time left until the cell's deadline, so no
    /// blocking call outlives the cell even if nobody cancels it.
    public func applyDeadline(to socket: Socket) throws(SystemError) {
        let left = Swift.max(remainingNanos, 1_000_000)
        try socket.setReceiveTimeout(nanoseconds: left)
        try socket.setSendTimeout(nanoseconds: left)
    }

    /// Sends never block past the cell's deadline (receives keep their own timeouts).
    public func applySendDeadline(to socket: Socket) throws(SystemError) {
        try socket.setSendTimeout(nanoseconds: Swift.max(remainingNanos, 1_000_000))
    }

    /// A loopback cell built the way the runner builds one: for testing a plugin
    /// without a matrix (see docs/PLUGINS.md).
    public static func loopback(
        payload: Payload?, rttProbes: Int = 10, timeoutSeconds: Double = 20, seed: UInt64 = 1,
        environment: String = "test", distanceMeters: Double? = nil
    ) -> CellContext {
        CellContext(
            cellID: "test", repetition: 1, seed: seed, payload: payload, rttProbes: rttProbes,
            deadline: MonotonicClock.now() + UInt64(timeoutSeconds * 1e9),
            link: ResolvedLink(
                environment: environment, distanceMeters: distanceMeters,
                distanceLabel: distanceMeters.map { JSONValue.format($0) } ?? "1"),
            client: Endpoint(address: "127.0.0.1"), server: Endpoint(address: "127.0.0.1"),
            cancellation: CellCancellation(), logger: Logger(label: "test"))
    }
}
