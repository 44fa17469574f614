public import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The serving side's TCP listener for either channel.
public final class TokenChannelListener: Sendable {
    public let socket: Socket
    /// Where the client connects.
    public let address: SocketAddress

    /// Listens on `host`, port chosen by the system.
    public convenience init(host: String) throws {
        try self.init(endpoint: Endpoint(address: host))
    }

    /// Listens on a server endpoint (`Endpoint.bindServer`: its data ports and allowed peer).
    public init(endpoint: Endpoint) throws {
        socket = try Socket(family: SocketAddress(host: endpoint.address, port: 0).family, type: Int32(SOCK_STREAM.rawValue))
        try socket.setReuseAddress()
        let bound = try endpoint.bindServer(socket)
        try socket.listen(backlog: 4)
        address = SocketAddress(host: endpoint.address, port: bound.port)
    }

    /// Waits for the client until `deadline`; nil when it did not come.
    public func accept(deadline: UInt64) throws -> Socket? {
        while true {
            let now = MonotonicClock.now()
            guard deadline > now else { return nil }
            if try socket.waitReadable(timeoutNanos: min(deadline - now, 100_000_000)), let c = try socket.accept() {
                try? c.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY")
                return c
            }
        }
    }
}
