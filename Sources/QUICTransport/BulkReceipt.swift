import PeerBenchPlugin
import PeerBenchWorkloads

/// What the server has received of the cell's bulk phase: whole messages, body bytes,
/// the receiver's span and the bulk series. One per cell session, shared by the
/// connections of that session (`reconnect`: the first HELLO connection's and every
/// RESUME connection's after it), so the counts the REPORT carries cover them all.
final class BulkReceipt {
    private(set) var messages: UInt64 = 0
    private(set) var bytes: UInt64 = 0
    private(set) var firstByteAt: UInt64?
    private(set) var lastByteAt: UInt64 = 0
    /// When the first and the latest whole bulk message arrived (the receiver's span).
    private(set) var firstMessageAt: UInt64?
    private(set) var lastMessageAt: UInt64 = 0
    /// Bytes per 100 ms from the first bulk byte, sent in SERIES before the report.
    private(set) var series = BulkSeriesRecorder(maxIntervals: SeriesBody.maxIntervals)

    /// `n` body bytes of a bulk message arrived at `now` (`complete`: its last), and
    /// the app took the message at `takenAt` (`AppReceiveLoop`; `now` without one).
    func count(_ n: Int, complete: Bool, at now: UInt64, takenAt: UInt64? = nil) {
        if firstByteAt == nil { firstByteAt = now }
        lastByteAt = now
        bytes += UInt64(n)
        if n > 0 { series.record(bytes: n, at: now) }
        if complete {
            let at = takenAt ?? now
            messages += 1
            if firstMessageAt == nil { firstMessageAt = at }
            lastMessageAt = at
        }
    }

    /// A lost connection's messages that never arrived whole: their bytes leave the
    /// count (the client sends those messages again, whole), so `bytes` stays whole
    /// messages' bytes and counts each delivered message once. The series keeps them:
    /// they did cross the link.
    func discard(partialBytes: UInt64) { bytes -= min(partialBytes, bytes) }
}
