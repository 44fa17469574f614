import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

extension Endpoint {
    /// Binds a server's socket (stream or datagram) on this endpoint: its address, a
    /// free port from `dataPorts` (any port when nil), and — when `allowedPeer` is set —
    /// a kernel filter that drops every packet from any other address, attached before
    /// the bind. Every plugin's server binds through here, so a server reachable from a
    /// real network accepts only the authenticated client and never answers anyone
    /// else (`serve` cannot be used to reflect or amplify traffic). Call it inside
    /// `run` (the endpoint's namespace). Returns the bound address.
    public func bindServer(_ socket: Socket) throws -> SocketAddress {
        if let allowedPeer { try socket.acceptOnlyFrom(allowedPeer) }
        guard let ports = dataPorts else {
            try socket.bind(SocketAddress(host: address, port: 0))
            return try socket.localAddress()
        }
        // A random first port, so consecutive cells do not all collide on the lowest
        // one while its previous socket lingers.
        let count = Int(ports.upperBound) - Int(ports.lowerBound) + 1
        let first = Int.random(in: 0..<count)
        for i in 0..<count {
            let port = UInt16(Int(ports.lowerBound) + (first + i) % count)
            do {
                try socket.bind(SocketAddress(host: address, port: port))
                return try socket.localAddress()
            } catch let e as SystemError where e.errno == EADDRINUSE {
                continue
            }
        }
        throw TransportError("no free data port in \(ports.lowerBound)-\(ports.upperBound) on \(address)")
    }

    /// Whether a connection or datagram from `host` may reach this endpoint's servers.
    public func admits(_ host: String) -> Bool {
        guard let allowedPeer else { return true }
        return host == allowedPeer
    }
}
