/// The traffic service class, which sets transmit priority on Wi-Fi.
///
/// Each class maps to a DSCP after RFC 8325 section 4.2, the DSCP to an 802.1D user
/// priority (RFC 8325 section 4.3; Linux's `cfg80211_classify8021d` takes the DSCP's
/// precedence bits instead, the same access category for all but EF, see
/// docs/LINK-MODEL.md section 8), and the user priority to a WMM access category
/// (IEEE 802.11-2020 Table 10-1).
public enum ServiceClass: String, Sendable, Codable, CaseIterable, Hashable {
    /// Bulk that may wait: CS1, access category AC_BK.
    case background
    /// The default: DF, AC_BE.
    case bestEffort
    /// AF41, AC_VI.
    case interactiveVideo
    /// EF, AC_VO.
    case interactiveVoice

    /// The DiffServ code point: CS1 (8), DF (0), AF41 (34), EF (46) [RFC 8325 4.2].
    public var dscp: UInt8 {
        switch self {
        case .background: 8
        case .bestEffort: 0
        case .interactiveVideo: 34
        case .interactiveVoice: 46
        }
    }

    /// The 802.1D user priority the DSCP maps to [RFC 8325 4.3]: CS1 -> 1, DF -> 0,
    /// AF41 -> 4, EF -> 6. Also what the socket's `SO_PRIORITY` is set to: a queueing
    /// discipline or a Wi-Fi driver that classifies by `skb->priority` sees the same class.
    /// 0 to 6 need no privilege (7 would need CAP_NET_ADMIN).
    public var userPriority: Int32 {
        switch self {
        case .background: 1
        case .bestEffort: 0
        case .interactiveVideo: 4
        case .interactiveVoice: 6
        }
    }

    /// The IP header's traffic class byte: DSCP in the upper six bits, ECN bits zero
    /// (the kernel keeps TCP's own ECN bits).
    public var trafficClassByte: Int32 { Int32(dscp) << 2 }

    /// The service class whose DSCP is `dscp` under RFC 8325's user-priority mapping,
    /// for code points this enum does not name: the access category decides.
    public init(dscp: UInt8) {
        switch dscp {
        case 8, 1: self = .background  // CS1, LE -> UP 1 -> AC_BK
        case 46, 44, 48: self = .interactiveVoice  // EF, VOICE-ADMIT -> UP 6, CS6 -> UP 7: AC_VO
        case 40, 32, 34, 36, 38, 24, 26, 28, 30: self = .interactiveVideo  // CS5 -> UP 5; CS4, AF4x, CS3, AF3x -> UP 4: AC_VI
        default: self = .bestEffort  // DF, AF1x, AF2x, CS2, ... -> UP 0 or 3: AC_BE
        }
    }
}
