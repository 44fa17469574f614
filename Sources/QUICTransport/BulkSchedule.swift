/// Hands the bulk phase's messages to QUIC streams according to the stream mode.
struct BulkSchedule {
    let count: Int
    let mode: StreamMode
    private var opened = 0
    private(set) var streamsUsed = 0
    private var unwritten: [StreamSender] = []

    init(count: Int, mode: StreamMode) {
        self.count = count
        self.mode = mode
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

    mutating func advance(connection: QUICConnection, block: MessageBlock) {
        unwritten.removeAll { $0.isFullyWritten }
        switch mode {
        case .single:
            guard opened == 0, count > 0, let id = connection.openBidiStream() else { return }
            let s = connection.sender(id)
            s.append(borrowing: block.region, repeats: UInt64(count))
            s.finish()
            unwritten.append(s)
            opened = count
            streamsUsed = 1
        case .perMessage:
            while opened < count, unwritten.count < QUICClient.perMessageWindow, let id = connection.openBidiStream() {
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
