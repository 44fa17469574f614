import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

extension Socket {
    /// TCP_NODELAY, TCP_CONGESTION and TCP_USER_TIMEOUT when asked (`noDelay`,
    /// `congestionControl`, `userTimeoutMs`); the cell's scope sets the timeouts.
    func setUp(_ options: TLSOptions) throws {
        if options.noDelay { try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY") }
        if let cc = options.congestionControl { try setCongestionControl(cc) }
        try options.userTimeout?.apply(to: self)
    }
}
