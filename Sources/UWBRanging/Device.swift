/// The kind of device a session runs on; it travels in the discovery token, so the
/// peer learns it (a watch has no antenna array: its peer never gets a direction).
public enum DeviceClass: String, Sendable, CaseIterable, Hashable {
    case phone, watch

    var wireValue: UInt8 { self == .phone ? 1 : 2 }
    init?(wireValue: UInt8) {
        switch wireValue {
        case 1: self = .phone
        case 2: self = .watch
        default: return nil
        }
    }
}

/// Apple's UWB chip generation: U1 (iPhone 11–14, Watch Series 6–8) or U2
/// (iPhone 15 and later, Watch Series 9 / Ultra 2). It sets the reach.
public enum ChipGeneration: String, Sendable, CaseIterable, Hashable {
    case first, second

    /// Largest distance at which a measurement is still possible, metres:
    /// ~30 m observed indoors with U1 [M, seed article]; U2 "significantly farther",
    /// taken as ~50 m [A].
    var reachMeters: Double { self == .first ? 30 : 50 }

    var wireValue: UInt8 { self == .first ? 1 : 2 }
    init?(wireValue: UInt8) {
        switch wireValue {
        case 1: self = .first
        case 2: self = .second
        default: return nil
        }
    }
}

/// What a device can measure, as announced in its token.
public struct RangingCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Measures distance (every UWB device).
    public static let distance = RangingCapabilities(rawValue: 1 << 0)
    /// Measures direction (angle of arrival; needs an antenna array: phones only).
    public static let direction = RangingCapabilities(rawValue: 1 << 1)
    /// Extended reach (second-generation chip).
    static let extendedDistance = RangingCapabilities(rawValue: 1 << 2)

    /// Every bit version 1 of the token defines.
    static let known: RangingCapabilities = [.distance, .direction, .extendedDistance]

    /// The capabilities a device of `kind` with `chip` has.
    public static func of(_ kind: DeviceClass, chip: ChipGeneration) -> RangingCapabilities {
        var c: RangingCapabilities = .distance
        if kind == .phone { c.insert(.direction) }
        if chip == .second { c.insert(.extendedDistance) }
        return c
    }
}
