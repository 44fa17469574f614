/// The senders of a connection's streams and the order in which their data goes
/// into packets: streams with something to send are served in the order they
/// became active, each until ngtcp2 takes no more, so the control stream (opened
/// first) is never stuck behind bulk data it was queued before.
struct StreamScheduler {
    private var senders: [Int64: StreamSender] = [:]
    /// Streams that may have data or a FIN still to hand to ngtcp2, in service order.
    private(set) var active: [StreamSender] = []

    /// The sender of `stream`, created on first use, and scheduled for writing.
    mutating func sender(_ stream: Int64) -> StreamSender {
        if let s = senders[stream] {
            if !active.contains(where: { $0 === s }) { active.append(s) }
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
    func nextPending(from index: inout Int) -> StreamSender? {
        while index < active.count, !active[index].hasPending { index += 1 }
        return index < active.count ? active[index] : nil
    }

    /// Drops streams with nothing left to send from the active list.
    mutating func pruneIdle() {
        if active.contains(where: { !$0.hasPending }) { active.removeAll { !$0.hasPending } }
    }

    var activeCount: Int { active.count }
}
