/// Link behaviour for one environment x distance, as the record reports it and the
/// testbed applies it. Values are nil where the environment does not define them.
public struct ResolvedLink: Sendable, Codable {
    /// The environment's name (`"forest"`, `"lab"`).
    public var environment: String
    /// The resolved distance in metres (nil for fixed-parameter environments, where it has no meaning).
    public var distanceMeters: Double?
    /// The matrix's distance as written: `"10"`, `"max"`.
    public var distanceLabel: String
    /// One-way delay and its jitter (ms), packet loss (%), the rate the link carries
    /// (Mbit/s) and its MTU (bytes).
    public var delayMs: Double?, jitterMs: Double?, lossPercent: Double?, rateMbps: Double?, mtu: Int?
    /// The radio's signal (dBm), signal-to-noise ratio (dB), MCS index and PHY rate (Mbit/s).
    public var rssiDbm: Double?, snrDb: Double?, mcs: Int?, phyRateMbps: Double?
    /// False when the radio model says the peers cannot connect at this distance.
    public var connected: Bool = true
    /// Model detail the link emulator needs beyond the summary values above (time
    /// variation, burst loss, channel schedule). Opaque to the core.
    public var channel: (any Sendable)?
    /// The cell's scenario as the link model resolved it (nil = static). Stays in the
    /// runner, like `channel`.
    public var scenario: ScenarioEvent?
    /// Bytes the link's transmit queue holds per direction when it drops what does not
    /// fit (the built-in radio environments); nil when a full queue holds the sender
    /// back instead, or the link has none. Not recorded.
    public var queueBytes: Int?

    public init(environment: String, distanceMeters: Double?, distanceLabel: String) {
        self.environment = environment
        self.distanceMeters = distanceMeters
        self.distanceLabel = distanceLabel
    }
}

extension ResolvedLink {
    // `channel` (the emulator's model) and `notes` stay in the runner.
    enum CodingKeys: String, CodingKey {
        case environment, distanceMeters = "distance_m", distanceLabel = "distance_label", delayMs = "delay_ms"
        case jitterMs = "jitter_ms", lossPercent = "loss_percent", rateMbps = "rate_mbps", mtu, rssiDbm = "rssi_dbm"
        case snrDb = "snr_db", mcs, phyRateMbps = "phy_rate_mbps", connected
    }
}
