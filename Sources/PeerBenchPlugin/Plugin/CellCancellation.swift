public import PeerBenchSystem
import Synchronization

/// Lets the runner stop a cell's blocking work: at the deadline it shuts down every
/// registered socket (which wakes blocked calls) and runs registered handlers.
public final class CellCancellation: Sendable {
    private struct State {
        var sockets: [ObjectIdentifier: Socket] = [:]
        var handlers: [@Sendable () -> Void] = []
        var cancelled = false
    }
    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Registers a socket; if the cell is already cancelled it is shut down at once.
    public func register(_ socket: Socket) {
        let already = state.withLock { s in
            if !s.cancelled { s.sockets[ObjectIdentifier(socket)] = socket }
            return s.cancelled
        }
        if already { socket.shutdown() }
    }

    public func unregister(_ socket: Socket) {
        _ = state.withLock { $0.sockets.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    /// Runs `handler` on cancellation (at once if already cancelled).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { s in
            if !s.cancelled { s.handlers.append(handler) }
            return s.cancelled
        }
        if already { handler() }
    }

    public func cancel() {
        let (sockets, handlers) = state.withLock { s -> ([Socket], [@Sendable () -> Void]) in
            if s.cancelled { return ([], []) }
            s.cancelled = true
            defer {
                s.sockets = [:]
                s.handlers = []
            }
            return (Array(s.sockets.values), s.handlers)
        }
        sockets.forEach { $0.shutdown() }
        handlers.forEach { $0() }
    }
}
