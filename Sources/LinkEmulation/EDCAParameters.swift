/// An access category's EDCA parameters: the default EDCA parameter set of IEEE
/// 802.11-2020 Table 9-155 for a non-AP station on an OFDM PHY (aCWmin 15,
/// aCWmax 1023) [D], with the 5 GHz OFDM slot time (9 us) and SIFS (16 us) [D].
///
/// How the emulator uses them (docs/LINK-MODEL.md section 8): between categories it serves
/// the highest non-empty queue first (strict priority: AIFS and contention window make
/// the higher category win the medium almost always [A]); within a category, first in
/// first out. The link's rate already includes best effort's channel access (the MAC
/// efficiency, section 3), so a frame of a category with a longer AIFS (background)
/// pays the difference in air time; the shorter access of video and voice is not
/// credited [A], their advantage is priority.
public struct EDCAParameters: Sendable, Equatable {
    /// Arbitration inter-frame space number.
    public var aifsn: Int
    public var cwMin: Int
    public var cwMax: Int
    /// Transmit opportunity limit, microseconds; 0 = one frame per access.
    public var txopMicros: Int

    /// 802.11 OFDM slot time at 5 GHz, microseconds [D].
    public static let slotMicros = 9
    /// Short inter-frame space at 5 GHz, microseconds [D].
    public static let sifsMicros = 16

    /// Table 9-155's defaults [D].
    public static func `default`(_ ac: AccessCategory) -> EDCAParameters {
        switch ac {
        case .background: EDCAParameters(aifsn: 7, cwMin: 15, cwMax: 1023, txopMicros: 0)
        case .bestEffort: EDCAParameters(aifsn: 3, cwMin: 15, cwMax: 1023, txopMicros: 0)
        case .video: EDCAParameters(aifsn: 2, cwMin: 7, cwMax: 15, txopMicros: 3_008)
        case .voice: EDCAParameters(aifsn: 2, cwMin: 3, cwMax: 7, txopMicros: 1_504)
        }
    }

    /// AIFS = SIFS + AIFSN x slot, microseconds.
    public var aifsMicros: Int { Self.sifsMicros + aifsn * Self.slotMicros }

    /// Mean channel access time of one frame on an idle medium: AIFS plus the mean
    /// back-off of CWmin / 2 slots, microseconds.
    public var meanAccessMicros: Double { Double(aifsMicros) + Double(cwMin) / 2 * Double(Self.slotMicros) }

    /// Extra air time per frame against best effort, nanoseconds: what a frame of `ac`
    /// pays beyond the link's calibrated rate (never negative, see above).
    public static func extraAirtimeNanos(_ ac: AccessCategory) -> UInt64 {
        let d = Self.default(ac).meanAccessMicros - Self.default(.bestEffort).meanAccessMicros
        return d > 0 ? UInt64(d * 1_000) : 0
    }
}
