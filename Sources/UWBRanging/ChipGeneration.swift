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
