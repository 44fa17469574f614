import PeerBenchJSON
import PeerBenchPlugin

#if canImport(Glibc)
    import Glibc
#endif

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
