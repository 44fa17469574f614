import Synchronization

/// Lets an interruption stop whichever cell is running right now.
public final class CellStopper: Sendable {
    private let state = Mutex<(action: (@Sendable () -> Void)?, fired: Bool)>((nil, false))

    public init() {}

    /// Installs the way to stop the current cell; runs it at once if a stop already came.
    func arm(_ stop: @escaping @Sendable () -> Void) {
        let now = state.withLock { s in
            s.action = stop
            return s.fired
        }
        if now { stop() }
    }

    func disarm() { state.withLock { $0.action = nil } }

    /// Stops the current cell (if any) and every cell armed afterwards.
    public func fire() {
        let action = state.withLock { s in
            s.fired = true
            return s.action
        }
        action?()
    }

    var hasFired: Bool { state.withLock { $0.fired } }
}
