import PeerBenchPlugin

/// The resolved link and the emulator's counters (`up` = client to server).
public struct RecordLink: Sendable, Equatable, Codable {
    public var mode: LinkMode
    public var delayMs: Double?
    public var jitterMs: Double?
    public var lossPercent: Double?
    public var rateMbps: Double?
    public var mtu: Int?
    public var rssiDbm: Double?
    public var snrDb: Double?
    public var mcs: Int?
    public var phyRateMbps: Double?
    public var packetsUp: Int?
    public var packetsDown: Int?
    public var bytesUp: Int?
    public var bytesDown: Int?
    public var dropsUp: Int?
    public var dropsDown: Int?
    /// `remote` only: the server's address as the client reached it.
    public var peerAddress: String?
    /// `remote` only: the client's outgoing interface towards the peer.
    public var interface: String?
    /// `remote` only: the path MTU towards the peer, bytes.
    public var pathMtu: Int?
    /// `remote` only: the control channel's round trip measured just before the cell, ms.
    public var controlRttMs: Double?
    /// Wi-Fi performance mode the cell ran with (`bulk`, `realtime`).
    public var performanceMode: String?
    /// Traffic service class (`background`, `bestEffort`, `interactiveVideo`, `interactiveVoice`).
    public var serviceClass: String?
    /// Fraction of the cell the radio was awake, per end (from the energy model).
    public var radioOnFraction: EndPair?
    /// Estimated radio energy of the cell per end, millijoules (from the energy model, not measured).
    public var energyMj: EndPair?

    /// Every field but `mode` defaults to null: the record fills them from the link, its
    /// counters and what the testbed knows.
    public init(
        mode: LinkMode, delayMs: Double? = nil, jitterMs: Double? = nil, lossPercent: Double? = nil,
        rateMbps: Double? = nil, mtu: Int? = nil, rssiDbm: Double? = nil, snrDb: Double? = nil,
        mcs: Int? = nil, phyRateMbps: Double? = nil, packetsUp: Int? = nil, packetsDown: Int? = nil,
        bytesUp: Int? = nil, bytesDown: Int? = nil, dropsUp: Int? = nil, dropsDown: Int? = nil,
        peerAddress: String? = nil, interface: String? = nil, pathMtu: Int? = nil,
        controlRttMs: Double? = nil, performanceMode: String? = nil, serviceClass: String? = nil,
        radioOnFraction: EndPair? = nil, energyMj: EndPair? = nil
    ) {
        self.mode = mode
        self.delayMs = delayMs
        self.jitterMs = jitterMs
        self.lossPercent = lossPercent
        self.rateMbps = rateMbps
        self.mtu = mtu
        self.rssiDbm = rssiDbm
        self.snrDb = snrDb
        self.mcs = mcs
        self.phyRateMbps = phyRateMbps
        self.packetsUp = packetsUp
        self.packetsDown = packetsDown
        self.bytesUp = bytesUp
        self.bytesDown = bytesDown
        self.dropsUp = dropsUp
        self.dropsDown = dropsDown
        self.peerAddress = peerAddress
        self.interface = interface
        self.pathMtu = pathMtu
        self.controlRttMs = controlRttMs
        self.performanceMode = performanceMode
        self.serviceClass = serviceClass
        self.radioOnFraction = radioOnFraction
        self.energyMj = energyMj
    }

    public enum CodingKeys: String, CodingKey {
        case mode, delayMs = "delay_ms", jitterMs = "jitter_ms", lossPercent = "loss_percent", rateMbps = "rate_mbps", mtu
        case rssiDbm = "rssi_dbm", snrDb = "snr_db", mcs, phyRateMbps = "phy_rate_mbps", packetsUp = "packets_up"
        case packetsDown = "packets_down", bytesUp = "bytes_up", bytesDown = "bytes_down", dropsUp = "drops_up"
        case dropsDown = "drops_down", peerAddress = "peer_address", interface, pathMtu = "path_mtu"
        case controlRttMs = "control_rtt_ms", performanceMode = "performance_mode", serviceClass = "service_class"
        case radioOnFraction = "radio_on_fraction", energyMj = "energy_mj"
    }
}
