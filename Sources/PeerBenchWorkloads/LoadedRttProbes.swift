import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// RTT probes during the bulk phase (latency under load, docs/RECORDS.md `rtt_loaded_ms`):
/// the plugin option `"loadedRttProbes": {"intervalMs": 100}`, shared by every plugin
/// that supports it (tcp, tls, udp, quic). Absent means off, so the field study's figures
/// stay as they were: probes ride on the data they measure and cost it some throughput.
public struct LoadedRttProbes: Sendable, Equatable {
    /// Time between probes, nanoseconds.
    public var intervalNanos: UInt64
    /// Which flow the probes travel on.
    public var flow: Flow

    /// Where loaded probes go (docs/RECORDS.md, "RTT under load").
    public enum Flow: String, Sendable, CaseIterable {
        /// The data's own flow: the same TCP connection or TLS session (head-of-line
        /// blocking behind queued data), the same UDP socket pair, QUIC's same
        /// connection on its control stream.
        case same
        /// A second connection of the same transport to the same server, carrying only
        /// probes: what another app's message sees while the link is busy.
        case separate
    }

    /// Probes every `intervalMs` milliseconds on `flow`.
    public init(intervalMs: Double, flow: Flow = .same) {
        intervalNanos = UInt64(intervalMs * 1e6)
        self.flow = flow
    }

    /// The plugin option's key.
    public static let key = "loadedRttProbes"

    /// Reads `loadedRttProbes {intervalMs, flow}`; nil when the option is absent (off).
    /// Only a present option is read, and `flow` only when given, so records of runs
    /// without them are unchanged. A flow the plugin does not implement (`flows`) is
    /// refused naming the option's path.
    public static func read(_ options: PluginOptions, flows: [Flow] = Flow.allCases) throws(InputError) -> LoadedRttProbes? {
        guard options.has(key) else { return nil }
        let o = try options.object(key)
        let ms = try o.double("intervalMs", default: 100, range: 1...60_000) ?? 100
        let flow = o.has("flow") ? try o.choice("flow", default: Flow.same) : .same
        guard flows.contains(flow) else {
            throw InputError(
                path: o.path.key("flow").description,
                "this plugin sends loaded probes on \(flows.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")) only, not \"\(flow.rawValue)\"")
        }
        return LoadedRttProbes(intervalMs: ms, flow: flow)
    }

    /// What `peerbench list` prints for the option; `flows` as for `read`.
    public static func descriptors(flows: [Flow] = Flow.allCases) -> [OptionDescriptor] {
        [
            OptionDescriptor(
                "\(key).intervalMs", type: "number", default: "off",
                help: "Send an RTT probe every this many ms during the bulk phase (rtt_loaded_ms); absent = off (1-60000)."),
            OptionDescriptor(
                "\(key).flow", type: flows.map(\.rawValue).joined(separator: "|"), default: Flow.same.rawValue,
                help: flows.contains(.separate)
                    ? "same: on the data's own connection (head-of-line blocking shows); separate: on a second connection to the same server that carries only probes."
                    : "same only: on the data's own flow (quic: the connection's control stream, beside the bulk stream)."),
        ]
    }

    /// Every flow: the default descriptors.
    public static var descriptors: [OptionDescriptor] { descriptors() }
}
