/// The senders of a connection's streams and the order in which their data goes
/// into packets: streams with something to send are served in stream-ID order, each
/// until ngtcp2 takes no more. The control stream (ID 0, opened first) therefore
/// goes first whenever it has something, also when it becomes active again behind
/// a bulk stream that always has data (a loaded probe or its PONG during the bulk
/// phase): QUIC's streams have no head-of-line blocking, and neither has our sender.
///
/// Streams marked `sharesFairly` (the flow and pull streams of a bulk over parallel
/// streams) take turns instead: one that has been handed `quantum` bytes since its
/// last turn goes to the back of the list, so N such streams send at once, interleaved
/// about every `quantum` bytes, rather than the lowest ID taking the whole congestion
/// window until its flow-control window stops it. Other streams keep ID order.
struct StreamScheduler {
    /// Bytes a fairly sharing stream sends before the next one's turn (about a dozen packets).
    static let quantum: UInt64 = 16_384

    private var senders: [Int64: StreamSender] = [:]
    /// Streams that may have data or a FIN still to hand to ngtcp2, in service order.
    private(set) var active: [StreamSender] = []

    /// The sender of `stream`, created on first use, and scheduled for writing.
    mutating func sender(_ stream: Int64) -> StreamSender {
        if let s = senders[stream] {
            if !active.contains(where: { $0 === s }) {
                // Back in ID order: new streams have the highest IDs, so only a
                // re-activated one (the control stream) moves ahead of others.
                active.insert(s, at: active.firstIndex { $0.streamID > stream } ?? active.count)
            }
            return s
        }
        let s = StreamSender(streamID: stream)
        senders[stream] = s
        active.append(s)
        return s
    }

    /// The sender of `stream` if it exists, without scheduling it.
    func existing(_ stream: Int64) -> StreamSender? { senders[stream] }

    /// Forgets `stream` (closed, or refused by ngtcp2).
    mutating func remove(_ stream: Int64) {
        guard let s = senders.removeValue(forKey: stream) else { return }
        active.removeAll { $0 === s }
    }

    /// The first active stream at or after `index` with something to send;
    /// `index` is moved onto it (or past the end).
    /// A fairly sharing stream whose turn is over goes to the back first.
    mutating func nextPending(from index: inout Int) -> StreamSender? {
        var moved = 0
        while index < active.count {
            let s = active[index]
            if !s.hasPending {
                index += 1
            } else if s.sharesFairly, s.servedThisTurn >= Self.quantum, moved < active.count {
                s.servedThisTurn = 0
                active.remove(at: index)
                active.append(s)
                moved += 1
            } else {
                return s
            }
        }
        return nil
    }

    /// Drops streams with nothing left to send from the active list.
    mutating func pruneIdle() {
        if active.contains(where: { !$0.hasPending }) { active.removeAll { !$0.hasPending } }
    }

    var activeCount: Int { active.count }
}
