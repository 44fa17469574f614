#if canImport(Glibc)
import Glibc
#endif
import PeerBenchCore

extension Socket {
    /// TCP_NODELAY when asked, and send/receive timeouts at the cell's deadline so no
    /// blocked call outlives the cell even if cancellation never comes.
    func prepareForTLS(noDelay: Bool, cell: CellContext) throws {
        if noDelay { try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1), "TCP_NODELAY") }
        try cell.applyDeadline(to: self)
    }
}
