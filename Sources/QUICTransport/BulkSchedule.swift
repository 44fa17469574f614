import PeerBenchWorkloads

/// Hands the bulk phase's messages to QUIC streams according to the stream mode;
/// with the app's send loop (`app`), no message before it is due.
struct BulkSchedule {
    let count: Int
    let mode: StreamMode
    private var opened = 0
    private(set) var streamsUsed = 0
    private var unwritten: [StreamSender] = []
    private let app: MessageSchedule?
    /// `.single`: the stream the messages go to, kept open while the app still hands some over.
    private var single: Int64?

    init(count: Int, mode: StreamMode, app: MessageSchedule? = nil) {
        self.count = count
        self.mode = mode
        self.app = app
    }

    /// How many messages the app has handed over by `now` (all without an app loop).
    private func due(now: UInt64) -> Int { app.map { min(count, $0.dueCount(at: now)) } ?? count }

    /// Nanoseconds until the app hands over its next message; nil when all are handed
    /// over (or there is no app loop).
    func nanosUntilDue(now: UInt64) -> UInt64? {
        guard let app, opened < count else { return nil }
        let next = app.due(opened)
        return next > now ? next - now : 0
    }

    /// Every message (and FIN) has been handed to ngtcp2.
    var isHandedOver: Bool { opened == count && unwritten.isEmpty }

    /// Messages of which ngtcp2 has taken at least a byte (`ReconnectEvent.resentBytes`).
    func handed(blockSize: Int) -> Int {
        switch mode {
        case .single:
            guard let s = unwritten.first else { return opened }
            return min(count, Int((s.offset + UInt64(blockSize) - 1) / UInt64(max(blockSize, 1))))
        case .perMessage:
            return opened - unwritten.filter { $0.offset == 0 }.count
        }
    }

    mutating func advance(connection: QUICConnection, block: MessageBlock, now: UInt64 = 0) {
        unwritten.removeAll { $0.isFullyWritten }
        let due = due(now: now)
        switch mode {
        case .single:
            guard opened < due else { return }
            if single == nil {
                guard let id = connection.openBidiStream() else { return }
                single = id
                streamsUsed = 1
            }
            // `sender` schedules the stream again: it may have gone idle waiting for the app.
            let s = connection.sender(single!)
            s.append(borrowing: block.region, repeats: UInt64(due - opened))
            opened = due
            if opened == count {
                s.finish()
                unwritten.append(s)
            }
        case .perMessage:
            while opened < due, unwritten.count < QUICClient.perMessageWindow, let id = connection.openBidiStream() {
                let s = connection.sender(id)
                s.append(borrowing: block.region)
                s.finish()
                unwritten.append(s)
                opened += 1
                streamsUsed += 1
            }
        }
    }
}
