import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// TCP's congestion controller per socket (`TCP_CONGESTION`), so tcp and tls can run the
/// controller quic runs (ngtcp2's CUBIC by default) instead of the host's default (BBR on
/// some machines, CUBIC on most and on Apple platforms): a head-to-head then compares
/// protocols, not controllers (docs/PLUGINS.md, `congestionControl`).
extension Socket {
    /// Sets the controller; a name the kernel has not loaded is loaded as module
    /// `tcp_NAME` when the process may (root), else the call fails naming what exists.
    public func setCongestionControl(_ name: String) throws(SystemError) {
        var bytes = Array(name.utf8)
        let result: Int32 =
            (try? withDescriptor("setsockopt(TCP_CONGESTION)") { fd in
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_CONGESTION, &bytes, socklen_t(bytes.count))
            }) ?? -1
        guard result == 0 else {
            let e = errno
            let offered = CongestionControl.available().joined(separator: " ")
            throw SystemError(
                "congestionControl \"\(name)\" (TCP_CONGESTION; this kernel offers \(offered.isEmpty ? "no list" : offered); "
                    + "another needs its module, tcp_\(name), loaded)", errno: e)
        }
    }

    /// The controller in force, read back from the socket; nil if the kernel will not say.
    public func congestionControl() -> String? {
        var buffer = [UInt8](repeating: 0, count: 16)
        var length = socklen_t(buffer.count)
        let result: Int32 =
            (try? withDescriptor("getsockopt(TCP_CONGESTION)") { fd in
                getsockopt(fd, Int32(IPPROTO_TCP), TCP_CONGESTION, &buffer, &length)
            }) ?? -1
        guard result == 0 else { return nil }
        let name = String(decoding: buffer.prefix(Int(length)).prefix { $0 != 0 }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}
