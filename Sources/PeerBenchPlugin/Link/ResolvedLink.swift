/// Link behaviour for one environment x distance, as the record reports it and the
/// testbed applies it. Values are nil where the environment does not define them.
public struct ResolvedLink: Sendable, Codable {
    /// The environment's name (`"forest"`, `"lab"`).
    public var environment: String
    /// The resolved distance in metres (nil for fixed-parameter environments, where it has no meaning).
    public var distanceMeters: Double?
    /// The matrix's distance as written: `"10"`, `"max"`.
    public var distanceLabel: String
    /// One-way delay, milliseconds.
    public var delayMs: Double?
    public var jitterMs: Double?
    public var lossPercent: Double?
    public var rateMbps: Double?
    public var mtu: Int?
    public var rssiDbm: Double?
    public var snrDb: Double?
    public var mcs: Int?
    public var phyRateMbps: Double?
    /// False when the radio model says the peers cannot connect at this distance.
    public var connected: Bool = true
    /// Model detail the link emulator needs beyond the summary values above (time
    /// variation, burst loss, channel schedule). Opaque to the core.
    public var channel: (any Sendable)?
    /// The cell's scenario as the link model resolved it (nil = static). Stays in the
    /// runner, like `channel`.
    public var scenario: ScenarioEvent?

    public init(environment: String, distanceMeters: Double?, distanceLabel: String) {
        self.environment = environment
        self.distanceMeters = distanceMeters
        self.distanceLabel = distanceLabel
    }
}

/// Fixed link parameters for people who measured their own link:
/// `{"name": "lab", "link": {"delayMs": 10, "jitterMs": 1, "lossPercent": 0.5, "rateMbps": 50, "mtu": 1500}}`.
/// Every key optional; absent means no impairment of that kind.
public struct FixedLink: Sendable, Equatable, Hashable {
    public var delayMs: Double?
    public var jitterMs: Double?
    public var lossPercent: Double?
    public var rateMbps: Double?
    public var mtu: Int?

    public init(delayMs: Double? = nil, jitterMs: Double? = nil, lossPercent: Double? = nil, rateMbps: Double? = nil, mtu: Int? = nil) {
        self.delayMs = delayMs
        self.jitterMs = jitterMs
        self.lossPercent = lossPercent
        self.rateMbps = rateMbps
        self.mtu = mtu
    }

    func resolved(environment: String, distanceLabel: String) -> ResolvedLink {
        var r = ResolvedLink(environment: environment, distanceMeters: Double(distanceLabel), distanceLabel: distanceLabel)
        r.delayMs = delayMs
        r.jitterMs = jitterMs
        r.lossPercent = lossPercent
        r.rateMbps = rateMbps
        r.mtu = mtu
        return r
    }
}

/// Counters the emulator keeps per cell. Up = client to server. IP packets, so a
/// fragmented datagram counts once per fragment.
public struct LinkCounters: Sendable, Equatable {
    public var packetsUp = 0, packetsDown = 0
    public var bytesUp = 0, bytesDown = 0
    public var dropsUp = 0, dropsDown = 0
    /// Drops by cause (`queue`, `loss`, `off_channel`, ...) for `extra.link_drops`.
    public var dropCauses: [String: Int] = [:]
    /// What the emulator delivered over time (for scenario figures); nil without an emulator.
    public var delivery: LinkDeliverySeries?
    /// Aggregates, MPDUs and window waits on a radio link's MAC; nil elsewhere.
    public var air: LinkAirCounters?
    public init() {}
}

extension ResolvedLink {
    // `channel` (the emulator's model) and `notes` stay in the runner.
    enum CodingKeys: String, CodingKey {
        case environment, distanceMeters = "distance_m", distanceLabel = "distance_label", delayMs = "delay_ms"
        case jitterMs = "jitter_ms", lossPercent = "loss_percent", rateMbps = "rate_mbps", mtu, rssiDbm = "rssi_dbm"
        case snrDb = "snr_db", mcs, phyRateMbps = "phy_rate_mbps", connected
    }
}
