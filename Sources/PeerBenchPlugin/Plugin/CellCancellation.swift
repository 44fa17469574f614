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

    /// A cell not yet cancelled.
    public init() {}

    /// Whether `cancel` ran: blocking work should stop.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Registers a socket; if the cell is already cancelled it is shut down at once.
    public func register(_ socket: Socket) {
        if cancelledElse({ $0.sockets[ObjectIdentifier(socket)] = socket }) { socket.shutdown() }
    }

    /// Forgets a socket (it is closed or no longer the cell's).
    public func unregister(_ socket: Socket) {
        _ = state.withLock { $0.sockets.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    /// Runs `handler` on cancellation (at once if already cancelled).
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        if cancelledElse({ $0.handlers.append(handler) }) { handler() }
    }

    /// Whether the cell is cancelled already; if not, `add` puts what to cancel in the
    /// state, under the same lock, so that a `cancel` cannot come in between.
    private func cancelledElse(_ add: (inout State) -> Void) -> Bool {
        state.withLock { s in
            if !s.cancelled { add(&s) }
            return s.cancelled
        }
    }

    /// Shuts every registered socket down and runs the handlers, once; the runner's call.
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
