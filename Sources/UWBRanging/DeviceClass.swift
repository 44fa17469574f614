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
