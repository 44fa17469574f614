#if canImport(Glibc)
import Glibc
#endif
import PeerBenchPlugin

extension Socket {
    /// TCP_NODELAY when asked (`options.noDelay`); the cell's scope sets the timeouts.
    func setNoDelay(_ noDelay: Bool) throws {
        if noDelay { try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY") }
    }
}
