/// Groups the packets one write pass produces into batches for UDP segmentation
/// offload: one `sendmsg` carries packets of equal size back to back (`UDP_SEGMENT`),
/// of which only the last may be shorter. A value type with no I/O, so its rules are
/// tested alone; `QUICConnection.writePackets` does the writing and sending.
///
/// The caller writes each packet into its buffer at `nextOffset`, reports its size
/// with `add`, and sends `take()` whenever told to.
struct PacketBatcher {
    /// A batch to send: `bytes` from the buffer's start, in packets of `segment`
    /// bytes (0 = one packet, no segmentation).
    struct Batch: Equatable {
        var bytes: Int
        var segment: Int
    }

    /// What the caller must do after `add`.
    enum Step: Equatable {
        /// Keep writing packets after this one.
        case keep
        /// The batch, this packet included, is complete: send `take()`.
        case send
        /// This packet is bigger than the batch's: send `take()` first (it excludes
        /// this packet), move the packet to the buffer's start and `add` it again.
        case sendEarlierFirst
    }

    /// Most packets per batch (the kernel allows 64 segments and 64 KB per send).
    let maxPackets: Int
    private(set) var bytes = 0
    private(set) var count = 0
    private(set) var segment = 0

    init(maxPackets: Int) {
        precondition(maxPackets >= 1)
        self.maxPackets = maxPackets
    }

    /// Where the next packet goes in the caller's buffer.
    var nextOffset: Int { bytes }
    var isEmpty: Bool { count == 0 }

    /// Accounts for a packet of `size` bytes written at `nextOffset`.
    mutating func add(_ size: Int) -> Step {
        if count > 0, size > segment { return .sendEarlierFirst }
        if count == 0 { segment = size }
        bytes += size
        count += 1
        // A shorter packet ends a batch (only the last may be short).
        return size < segment || count >= maxPackets ? .send : .keep
    }

    /// The batch so far (nil when empty); the batcher starts afresh.
    mutating func take() -> Batch? {
        guard count > 0 else { return nil }
        let batch = Batch(bytes: bytes, segment: count > 1 ? segment : 0)
        bytes = 0
        count = 0
        segment = 0
        return batch
    }
}
