import PeerBenchPlugin

/// How a stream transport's bulk phase hands its messages to the socket.
public enum BulkWrites: Sendable, Equatable {
    /// Many messages per send (up to `StreamWorkloadClient.batchBytes`): the fastest way
    /// to fill a socket, and what every method but the field study's send loop uses.
    case batched
    /// One send per message, back to back with no timer between them: the field study
    /// app's send loop (`RTTMethod.sendLoop`). With Nagle on, the first small message
    /// leaves alone and the next ones wait for its acknowledgement, as on the phones.
    case perMessage

    /// The writes a cell's RTT method implies: per message for `send-loop`, batched otherwise.
    public init(_ method: RTTMethod) {
        self = method == .sendLoop ? .perMessage : .batched
    }
}
