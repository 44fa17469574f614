import Logging

extension CellContext {
    /// Registers `socket` with the runner's cancellation and, if given, a server's own
    /// stopper, so either can unblock it.
    public func track(_ socket: Socket, _ stopper: CellCancellation? = nil) {
        cancellation.register(socket)
        stopper?.register(socket)
    }

    /// Forgets `socket` again before it closes, so a later cancel cannot hit a reused descriptor.
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
    public static func loopback(payload: Payload?, rttProbes: Int = 10, timeoutSeconds: Double = 20, seed: UInt64 = 1,
                                environment: String = "test", distanceMeters: Double? = nil) -> CellContext {
        CellContext(cellID: "test", repetition: 1, seed: seed, payload: payload, rttProbes: rttProbes,
                    deadline: MonotonicClock.now() + UInt64(timeoutSeconds * 1e9),
                    link: ResolvedLink(environment: environment, distanceMeters: distanceMeters,
                                       distanceLabel: distanceMeters.map { JSONValue.format($0) } ?? "1"),
                    client: Endpoint(address: "127.0.0.1"), server: Endpoint(address: "127.0.0.1"),
                    cancellation: CellCancellation(), logger: Logger(label: "test"))
    }
}
