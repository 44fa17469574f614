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
