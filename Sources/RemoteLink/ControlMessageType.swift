/// The type byte of a control frame (docs/protocol/control.md). Values are never reused.
public enum ControlMessageType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case hello = 0x01
    case cellRequest = 0x02
    case serverReady = 0x03
    case serverResult = 0x04
    case ping = 0x05
    case pong = 0x06
    case error = 0x07
    case busy = 0x08
    case bye = 0x09

    /// The name docs/protocol/control.md uses, for error messages.
    public var description: String {
        switch self {
        case .hello: "HELLO"
        case .cellRequest: "CELL_REQUEST"
        case .serverReady: "SERVER_READY"
        case .serverResult: "SERVER_RESULT"
        case .ping: "PING"
        case .pong: "PONG"
        case .error: "ERROR"
        case .busy: "BUSY"
        case .bye: "BYE"
        }
    }
}
