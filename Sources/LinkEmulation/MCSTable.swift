/// One row of the 802.11ac (VHT) modulation and coding table as PeerBench uses it:
/// 80 MHz channel, 800 ns guard interval.
public struct MCSEntry: Sendable, Equatable {
    /// VHT MCS index 0...9.
    public var index: Int
    public var modulation: String
    /// Minimum SNR (dB) at 80 MHz for this MCS to hold.
    public var minSnrDb: Double
    /// PHY rate of one spatial stream at 80 MHz, Mbit/s.
    public var phyRateOneStreamMbps: Double
}

/// The VHT MCS table (IEEE 802.11-2020 Table 21-25 rates; SNR thresholds as in
/// LINK-MODEL.md section 4) and the rate adaptation PeerBench assumes.
public enum MCSTable {
    /// Spatial streams: phones have 2x2 MIMO [A], which doubles every PHY rate.
    public static let spatialStreams = 2
    /// Channel width [D/A]: AWDL uses 80 MHz on channel 44 or 149.
    public static let channelWidthMHz = 80.0

    public static let entries: [MCSEntry] = [
        MCSEntry(index: 0, modulation: "BPSK 1/2", minSnrDb: 8, phyRateOneStreamMbps: 29.3),
        MCSEntry(index: 1, modulation: "QPSK 1/2", minSnrDb: 11, phyRateOneStreamMbps: 58.5),
        MCSEntry(index: 2, modulation: "QPSK 3/4", minSnrDb: 15, phyRateOneStreamMbps: 87.8),
        MCSEntry(index: 3, modulation: "16-QAM 1/2", minSnrDb: 17, phyRateOneStreamMbps: 117),
        MCSEntry(index: 4, modulation: "16-QAM 3/4", minSnrDb: 21, phyRateOneStreamMbps: 175.5),
        MCSEntry(index: 5, modulation: "64-QAM 2/3", minSnrDb: 24, phyRateOneStreamMbps: 234),
        MCSEntry(index: 6, modulation: "64-QAM 3/4", minSnrDb: 26, phyRateOneStreamMbps: 263.3),
        MCSEntry(index: 7, modulation: "64-QAM 5/6", minSnrDb: 31, phyRateOneStreamMbps: 292.5),
        MCSEntry(index: 8, modulation: "256-QAM 3/4", minSnrDb: 35, phyRateOneStreamMbps: 351),
        MCSEntry(index: 9, modulation: "256-QAM 5/6", minSnrDb: 37, phyRateOneStreamMbps: 390),
    ]

    /// Rate adaptation keeps this much SNR above an MCS's threshold before using it [A]
    /// (Minstrel-style controllers settle one step below the edge): the default of the
    /// environments' `rateAdaptationMarginDb`.
    public static let adaptationMarginDb = 1.0

    /// The SNR (dB) MCS 0 needs: below it the link is lost.
    public static var mcs0MinSnrDb: Double { entries[0].minSnrDb }

    /// The highest MCS whose threshold plus `marginDb` (the environment's
    /// `rateAdaptationMarginDb`) the SNR clears; nil below MCS 0. MCS 0 itself needs no
    /// margin: there is nothing lower to fall back to.
    public static func select(snrDb: Double, marginDb: Double = adaptationMarginDb) -> MCSEntry? {
        guard snrDb >= mcs0MinSnrDb else { return nil }
        return entries.last { $0.index == 0 || snrDb >= $0.minSnrDb + marginDb }
    }

    /// PHY rate with all spatial streams, Mbit/s.
    public static func phyRateMbps(_ entry: MCSEntry) -> Double { entry.phyRateOneStreamMbps * Double(spatialStreams) }

    /// Share of the PHY rate left for IP packets after MAC overhead (preambles,
    /// inter-frame spaces, block acks, contention) [A]: LINK-MODEL.md gives 0.6-0.7.
    public static let macEfficiency = 0.65

    /// Packet loss after 802.11 retries, as a function of SNR. Retries hide loss until
    /// the SNR nears MCS 0's threshold, then loss rises steeply: a logistic cliff
    /// centred `cliffCentreDb` above the threshold, `cliffWidthDb` wide [A].
    public static let cliffCentreDb = 1.0
    public static let cliffWidthDb = 0.6

    public static func lossProbability(snrDb: Double) -> Double {
        let x = (snrDb - mcs0MinSnrDb - cliffCentreDb) / cliffWidthDb
        if x > 30 { return 0 }
        return 1 / (1 + exp(x))
    }
}

#if canImport(Glibc)
    import Glibc
#endif
