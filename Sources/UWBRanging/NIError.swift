/// An error a `NearbySession` reports, with Nearby Interaction's codes so code written
/// against `NIError` maps one to one.
public struct NIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nearby Interaction's error codes (`NIError.Code`), with Apple's raw values.
    public enum Code: Int, Sendable, CaseIterable {
        /// The device has no UWB chip (never raised by the emulation, which runs everywhere).
        case unsupportedPlatform = -5889
        /// The configuration, usually the peer's discovery token, is not valid.
        case invalidConfiguration = -5888
        /// The session failed for another reason (here: a socket error on the ranging link).
        case sessionFailed = -5887
        /// The session was suspended or idle for too long and the system ended it.
        case resourceUsageTimeout = -5886
        /// The app already runs as many sessions as the system allows.
        case activeSessionsLimitExceeded = -5885
        /// The user declined the nearby-interaction permission (never raised here).
        case userDidNotAllow = -5884
        /// Camera assistance was requested with an unusable ARKit configuration (never raised here).
        case invalidARConfiguration = -5883
        /// An accessory peer is not available (never raised here).
        case accessoryPeerDeviceUnavailable = -5882
        /// The peer's device cannot range with this one (for example an unknown device class).
        case incompatiblePeerDevice = -5881
        /// Too many extended-distance sessions are active (never raised here).
        case activeExtendedDistanceSessionsLimitExceeded = -5880
    }

    public var code: Code
    /// What went wrong and, where it helps, what to do about it.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "NIError \(code) (\(code.rawValue)): \(message)" }
}
