import PeerBenchPlugin
import PeerBenchSystem

/// The server's half of the upload (docs/protocol/udp.md, "Bulk"): the DATA accounting
/// (`UDPReceiverStats`), the END that asks for the REPORT (it waits while announced
/// datagrams are missing, at most the END's linger), and the REPORT once made: frozen,
/// DATA after it no longer counts, and every later END is answered with it.
struct UDPUploadReceiver {
    private(set) var stats = UDPReceiverStats(expected: 0)
    /// END seen, report not yet made: the END's sent count, when the report is due anyway, what it asked for.
    private var pendingEnd: (sent: Int, due: UInt64, wantsSpan: Bool, wantsUnauthenticated: Bool)?
    private(set) var report: [UInt8]?

    /// A session began: `expected` DATA datagrams announced (bounded by the caller).
    init(expected: Int = 0) { stats = UDPReceiverStats(expected: expected) }

    /// One DATA datagram of the session, until the report is made.
    @inline(__always)
    mutating func data(_ h: UDPDatagramHeader, payloadBytes: Int, arrival: UInt64, monotonicArrival: UInt64) {
        guard report == nil else { return }
        stats.record(
            sequence: h.sequence, payloadBytes: payloadBytes, sentNanos: h.timestamp, arrivedNanos: arrival, monotonicArrival: monotonicArrival)
    }

    /// END {sent, bytes, linger ns (at most 5 s), flags}: the first starts the wait for stragglers.
    mutating func end(_ d: UnsafeRawBufferPointer, now: UInt64) {
        guard report == nil, pendingEnd == nil else { return }
        let flags = d.field(3)
        let wantsSpan = flags & UDPReportSeries.endFlagReceiverSpan != 0
        let wantsUnauthenticated = wantsSpan && flags & UDPReportSeries.endFlagUnauthenticated != 0
        pendingEnd = (Int(clamping: d.field(0)), now + min(d.field(2), 5_000_000_000), wantsSpan, wantsUnauthenticated)
    }

    /// Makes the REPORT once every announced datagram is in, or when the END's linger is
    /// up; returns it when made now. `unauthenticated`: the datagrams dropped for a bad tag.
    mutating func reportIfDue(session: UInt32, now: UInt64, unauthenticated: Int) -> [UInt8]? {
        guard report == nil, let end = pendingEnd, stats.received >= end.sent || now >= end.due else { return nil }
        let r = UDPDatagramHeader(type: .report, session: session, sequence: 0, timestamp: now).datagram(
            [
                UInt64(stats.received), UInt64(stats.receivedBytes), UInt64(stats.reordered), UInt64(stats.duplicated),
                UInt64(stats.jitter.jitterNanos.rounded()), UInt64(stats.jitter.samples), UInt64(stats.outOfRange),
            ] + UDPReportSeries.fields(stats.count.series?.series) + (end.wantsSpan ? [stats.spanNanos] : [])
                + (end.wantsUnauthenticated ? [UInt64(unauthenticated)] : []))
        report = r
        return r
    }
}
