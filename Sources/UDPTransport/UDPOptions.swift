public import PeerBenchJSON
public import PeerBenchPlugin
public import PeerBenchWorkloads

/// The UDP plugin's matrix options.
public struct UDPOptions: Sendable, Equatable {
    /// Application payload rate the sender paces to, megabits per second; nil sends
    /// back to back, as the field study did.
    public var rateMbps: Double?
    /// How long a probe waits for its echo before it counts as lost, milliseconds.
    public var probeTimeoutMs: Int
    /// RTT probes during the bulk phase on the same socket pair; nil = off.
    public var loadedRttProbes: LoadedRttProbes?
    /// The application keepalive that notices a dead peer; nil = off.
    public var keepAlive: UDPKeepAlive?
    /// Resume the bulk phase after the keepalive's verdict; nil = off (needs `keepAlive`).
    public var reconnect: ReconnectPolicy?
    /// SO_RCVBUF of every socket of the cell (the kernel doubles it); nil = 16 MiB, so a
    /// loopback run does not drop because the receiver was descheduled. A receiving app
    /// slower than its sender (`CellContext.appLoop`) loses what overflows it, as the
    /// phones' UDP did.
    public var receiveBufferBytes: Int?

    public init(
        rateMbps: Double? = nil, probeTimeoutMs: Int = 1_000, loadedRttProbes: LoadedRttProbes? = nil,
        keepAlive: UDPKeepAlive? = nil
    ) {
        self.rateMbps = rateMbps
        self.probeTimeoutMs = probeTimeoutMs
        self.loadedRttProbes = loadedRttProbes
        self.keepAlive = keepAlive
    }

    public init(_ options: PluginOptions) throws(InputError) {
        rateMbps = try options.double("rateMbps", default: nil, range: 0.001...1_000_000)
        probeTimeoutMs = try options.int("probeTimeoutMs", default: 1_000, range: 1...60_000)
        loadedRttProbes = try LoadedRttProbes.read(options)
        keepAlive = try UDPKeepAlive.read(options)
        // Read only when written, so matrices without it keep their cell ids.
        if options.has("receiveBufferBytes") {
            receiveBufferBytes = try options.int("receiveBufferBytes", default: 0, range: 4_096...(64 << 20))
        }
        reconnect = try ReconnectPolicy.read(
            options, detectedBy: keepAlive != nil, withLoadedRttProbes: loadedRttProbes != nil,
            missing:
                "keepAlive: UDP has no connection that could fail, so without the keepalive's verdict a vanished peer is never noticed and no resume would ever start"
        )
    }

    static let descriptors: [OptionDescriptor] =
        [
            OptionDescriptor(
                "rateMbps", type: "number", default: "null",
                help: "Pace the bulk phase to this payload rate in Mbit/s; null sends back to back."),
            OptionDescriptor(
                "probeTimeoutMs", type: "int", default: "1000",
                help: "Wait this long for a probe's echo before counting the probe as lost (1-60000)."),
            OptionDescriptor(
                "receiveBufferBytes", type: "int", default: "null",
                help: "SO_RCVBUF of the cell's sockets (4096-67108864): what a receiver slower than its sender holds before it drops; null = 16 MiB."),
        ] + LoadedRttProbes.descriptors + UDPKeepAlive.descriptors + ReconnectPolicy.descriptors
}
