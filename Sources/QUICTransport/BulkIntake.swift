/// One connection's part in the cell's bulk phase on the server: the receipt it counts
/// into (its own until it claims the cell; with HELLO it becomes the cell's, with RESUME
/// the cell's takes its place), its bulk streams that ended (DONE counts a connection's),
/// the bytes of each message still in progress, and whether it was released.
struct BulkIntake {
    var receipt = BulkReceipt()
    /// Bulk streams of this connection that ended.
    private(set) var finishedStreams: UInt64 = 0
    /// Body bytes of the message in progress on each bulk stream (`release`).
    private var partial: [Int64: UInt64] = [:]
    /// Lost or superseded by a RESUME connection: nothing it still delivers counts.
    private(set) var released = false

    /// `n` bytes of a bulk message arrived on `stream` at `now` (`complete`: its last,
    /// which the app took at `takenAt`); the session counts nothing once `released`.
    mutating func count(_ n: Int, complete: Bool, on stream: Int64, at now: UInt64, takenAt: UInt64) {
        receipt.count(n, complete: complete, at: now, takenAt: takenAt)
        if complete { partial[stream] = nil } else { partial[stream, default: 0] += UInt64(n) }
    }

    mutating func streamEnded() { finishedStreams += 1 }

    /// The bytes of its messages cut short leave the count, and whatever it still
    /// delivers is ignored, so the resent messages count once. False when it already was.
    mutating func release() -> Bool {
        guard !released else { return false }
        released = true
        receipt.discard(partialBytes: partial.values.reduce(0, +))
        partial = [:]
        return true
    }
}
