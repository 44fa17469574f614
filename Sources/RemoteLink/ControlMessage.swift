public import PeerBenchJSON
import PeerBenchPlugin

/// One message of the control protocol between `peerbench run --link remote` and
/// `peerbench serve` (docs/protocol/control.md). A value, no I/O: `ControlFraming`
/// turns it into bytes and `ControlFrameDecoder` back.
public enum ControlMessage: Sendable, Equatable {
    /// The first message of each side: what it speaks and what it can run.
    case hello(Hello)
    /// The client asks the server to start a cell's server side (a JSON object whose
    /// keys `serve` defines; see docs/protocol/control.md).
    case cellRequest(JSONValue)
    /// The server side of a cell is listening: where, and the plugin's hello (a JSON object).
    case serverReady(JSONValue)
    /// The server side of a cell finished: what it learned (a JSON object).
    case serverResult(JSONValue)
    /// A probe of the control channel's round-trip time; the peer answers `pong` with the same value.
    case ping(UInt64)
    /// The answer to `ping`, carrying its value back.
    case pong(UInt64)
    /// The sender refuses or failed something; `code` is one of `ControlErrorCode` (or a
    /// code a later version defines), `message` a sentence for people.
    case error(code: UInt16, message: String)
    /// The server already serves another session; it closes after sending this.
    case busy
    /// The sender ends the session in order.
    case bye

    /// The first message of each side of a session.
    public struct Hello: Sendable, Equatable {
        /// The control protocol versions the sender speaks (`RemoteLink.controlProtocolVersions`), at least one.
        public var protocolVersions: [UInt16]
        /// The sender's PeerBench version, for logs and error messages.
        public var softwareVersion: String
        /// The plugins the sender has registered (names as `peerbench list` shows them).
        public var plugins: [String]

        public init(protocolVersions: [UInt16], softwareVersion: String, plugins: [String]) {
            self.protocolVersions = protocolVersions
            self.softwareVersion = softwareVersion
            self.plugins = plugins
        }
    }

    /// The frame type this message travels as.
    public var type: ControlMessageType {
        switch self {
        case .hello: .hello
        case .cellRequest: .cellRequest
        case .serverReady: .serverReady
        case .serverResult: .serverResult
        case .ping: .ping
        case .pong: .pong
        case .error: .error
        case .busy: .busy
        case .bye: .bye
        }
    }
}

/// The codes of an ERROR message this version defines. A receiver shows an unknown
/// code's message as it is.
public enum ControlErrorCode {
    /// The two HELLOs share no protocol version.
    public static let versionMismatch: UInt16 = 1
    /// The peer broke the protocol (a malformed frame, a message out of order).
    public static let protocolViolation: UInt16 = 2
    /// A CELL_REQUEST the server cannot accept (unknown plugin, bad options, over a limit).
    static let badRequest: UInt16 = 3
    /// The cell's server side failed; the message says why.
    static let cellFailed: UInt16 = 4
    /// Something went wrong inside the sender that is not the peer's fault.
    static let internalError: UInt16 = 5
}
