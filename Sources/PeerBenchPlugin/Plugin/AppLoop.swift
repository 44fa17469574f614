/// The application's own time per message, at each end (the matrix's `appLoop`:
/// `{"sendMicros": S, "receiveMicros": R}`; absent = none, the default).
///
/// The field study's app handed every message to the stack with its own send call and
/// took every message in a receive callback of its own, both on the app's main queue
/// (docs/FIELD-STUDY.md); a phone spends tens of microseconds on each. That bounds
/// small messages by a count of messages, whatever the stack and link do with them:
/// the phones' TCP and UDP both stayed near 30 Mbit/s with 10 000 x 128 B although TCP
/// coalesced them into a tenth of the frames. A plugin that honours it (tcp, tls, udp,
/// quic) hands its messages and probes to the stack no faster than one per `sendNanos`
/// and takes what arrives no faster than one per `receiveNanos`, stamping each message
/// when it takes it (`AppReceiveLoop` in PeerBenchWorkloads); its socket is read no
/// faster either, so the kernel's buffer holds, and for datagrams drops, what a faster
/// sender brings, as the phone's did.
public struct AppLoop: Sendable, Equatable, Hashable, Codable {
    /// Nanoseconds the sending app spends handing one message (or probe) to the stack.
    public var sendNanos: UInt64
    /// Nanoseconds the receiving app spends taking one message (or probe, or echo).
    public var receiveNanos: UInt64

    public init(sendNanos: UInt64 = 0, receiveNanos: UInt64 = 0) {
        self.sendNanos = sendNanos
        self.receiveNanos = receiveNanos
    }

    /// The most either end may spend on one message: 10 ms (a matrix and serve refuse more).
    public static let maxNanos: UInt64 = 10_000_000

    /// No cost at either end: messages go and are taken as fast as the stack allows.
    public static let none = AppLoop()

    /// True when neither end has a cost.
    public var isNone: Bool { sendNanos == 0 && receiveNanos == 0 }

    enum CodingKeys: String, CodingKey {
        case sendNanos = "send_ns", receiveNanos = "receive_ns"
    }
}
