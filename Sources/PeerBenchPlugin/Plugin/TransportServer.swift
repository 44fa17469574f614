import PeerBenchJSON
import PeerBenchSystem

/// The server side of one cell, running in the background.
///
/// Everything the client learns from its server passes through `address` and
/// `hello`, both serialisable: the runner hands them over, so the two sides never
/// share memory and may one day run on different hosts.
public protocol TransportServer: Sendable {
    /// Where the client reaches the server.
    var address: SocketAddress { get }
    /// Anything else the client needs from its server before it starts (a session
    /// id, a key, an external server's ready line), as JSON; the runner passes it to
    /// `runClient` as `cell.serverHello`. Empty by default.
    var hello: JSONObject { get }
    /// Waits until the server has finished its session (the client said goodbye or
    /// disconnected). Throws what went wrong on the server side.
    func finish() async throws
    /// Stops the server at once; idempotent; makes `finish` return.
    func stop()
    /// CPU time the server side spent, seconds, known after `finish` when the server
    /// runs elsewhere and reports it (serve). nil by default: a server in this process
    /// is charged to the runner's own account for it (`CPUAccount`).
    var cpuSeconds: Double? { get }
}

extension TransportServer {
    public var hello: JSONObject { JSONObject() }
    public var cpuSeconds: Double? { nil }
}
