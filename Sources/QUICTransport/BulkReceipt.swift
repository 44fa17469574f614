import PeerBenchPlugin
import PeerBenchWorkloads

/// What the server has received of the cell's bulk phase: the bulk receiver's count
/// (`ReceivedMessages`: whole messages, body bytes, the series, the span), and when the
/// first and the last body byte came (the REPORT's informational receive time). One per
/// cell session, shared by the connections of that session (`reconnect`: the first
/// HELLO connection's and every RESUME connection's after it), so the counts the
/// REPORT carries cover them all.
final class BulkReceipt {
    /// The messages; their series (bytes per 100 ms from the first bulk byte) goes in
    /// SERIES before the report.
    private(set) var received = ReceivedMessages(series: BulkSeriesRecorder(maxIntervals: SeriesBody.maxIntervals))
    private(set) var firstByteAt: UInt64?
    private(set) var lastByteAt: UInt64 = 0

    /// `n` body bytes of a bulk message arrived at `now` (`complete`: its last), and
    /// the app took the message at `takenAt` (`AppReceiveLoop`; `now` without one).
    func count(_ n: Int, complete: Bool, at now: UInt64, takenAt: UInt64? = nil) {
        if firstByteAt == nil { firstByteAt = now }
        lastByteAt = now
        received.bytesArrived(n, at: now)
        if complete { received.messageArrived(at: takenAt ?? now) }
    }

    /// A lost connection's messages that never arrived whole: their bytes leave the
    /// count (the client sends those messages again, whole), so `bytes` stays whole
    /// messages' bytes and counts each delivered message once. The series keeps them:
    /// they did cross the link.
    func discard(partialBytes: UInt64) { received.bytes -= min(Int(clamping: partialBytes), received.bytes) }
}
