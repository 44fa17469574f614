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

/// The `congestionControl` option of the TCP-based plugins.
public enum CongestionControl {
    /// A controller's name as the kernel spells them (TCP_CA_NAME_MAX is 16 with the NUL).
    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 15 && s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    /// Reads `congestionControl`: nil (the host's default) or a controller's name.
    public static func read(_ options: PluginOptions) throws(InputError) -> String? {
        guard let name = try options.string("congestionControl", default: nil) else { return nil }
        guard isName(name) else {
            throw InputError(
                path: options.path.key("congestionControl").description,
                "expected a congestion controller's name as the kernel spells it (lower case, digits, '_', at most 15: cubic, reno, bbr), got \"\(name)\""
            )
        }
        return name
    }

    public static let descriptor = OptionDescriptor(
        "congestionControl", type: "string", default: "the host's default",
        help:
            "TCP_CONGESTION on both ends: cubic, reno, bbr or any controller the kernel offers (quic's default is cubic). The record's extra says which ran."
    )

    /// What `/proc/sys/net/ipv4/tcp_available_congestion_control` lists (loaded controllers).
    public static func available() -> [String] {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_available_congestion_control", encoding: .utf8) else { return [] }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }
}
