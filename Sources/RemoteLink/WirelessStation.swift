import PeerBenchPlugin

#if canImport(Glibc)
    import Glibc
#endif

/// What nl80211 says about the peer station of a wireless interface (as `iw dev IF
/// station dump` and `iw dev IF survey dump` show it). Every figure is optional:
/// drivers report different subsets.
public struct WirelessStation: Sendable, Codable, Equatable {
    /// The station's MAC address, `aa:bb:cc:dd:ee:ff`.
    public var mac: String?
    /// Signal of the last frame received from the station, dBm (NL80211_STA_INFO_SIGNAL).
    public var signalDbm: Int?
    /// The driver's average signal, dBm (NL80211_STA_INFO_SIGNAL_AVG).
    public var signalAverageDbm: Int?
    /// Noise floor of the channel in use, dBm (survey; only some drivers give it).
    public var noiseDbm: Int?
    /// MCS index of the transmit rate towards the station (HT, VHT, HE or EHT).
    public var txMCS: Int?
    /// Transmit bitrate towards the station, Mbit/s.
    public var txBitrateMbps: Double?
    /// Receive bitrate from the station, Mbit/s.
    public var rxBitrateMbps: Double?
    /// Milliseconds since the station was last heard (NL80211_STA_INFO_INACTIVE_TIME).
    public var inactiveMs: Int?
    /// Centre frequency of the channel in use, MHz (survey).
    public var frequencyMHz: Int?

    public init(
        mac: String? = nil, signalDbm: Int? = nil, signalAverageDbm: Int? = nil, noiseDbm: Int? = nil,
        txMCS: Int? = nil, txBitrateMbps: Double? = nil, rxBitrateMbps: Double? = nil,
        inactiveMs: Int? = nil, frequencyMHz: Int? = nil
    ) {
        self.mac = mac
        self.signalDbm = signalDbm
        self.signalAverageDbm = signalAverageDbm
        self.noiseDbm = noiseDbm
        self.txMCS = txMCS
        self.txBitrateMbps = txBitrateMbps
        self.rxBitrateMbps = rxBitrateMbps
        self.inactiveMs = inactiveMs
        self.frequencyMHz = frequencyMHz
    }

    enum CodingKeys: String, CodingKey {
        case mac, signalDbm = "signal_dbm", signalAverageDbm = "signal_average_dbm", noiseDbm = "noise_dbm", txMCS = "tx_mcs"
        case txBitrateMbps = "tx_bitrate_mbps", rxBitrateMbps = "rx_bitrate_mbps", inactiveMs = "inactive_ms"
        case frequencyMHz = "frequency_mhz"
    }

    /// Signal minus noise, dB, when the driver gives both.
    public var snrDb: Int? {
        guard let signal = signalDbm ?? signalAverageDbm, let noise = noiseDbm else { return nil }
        return signal - noise
    }
}
