import PeerBenchPlugin

/// The receiver's bulk series in a UDP REPORT (docs/protocol/udp.md), after the seven
/// counters: `intervalNs`, `n`, then `n` byte counts and `n` datagram counts, each a u64;
/// then, when the END asked for it, the receiver's span (`spanNs`).
enum UDPReportSeries {
    /// Index of `intervalNs` among the REPORT's u64 fields.
    static let firstField = 7
    /// END's fourth field (flags): bit 0 asks for `spanNs` after the series.
    static let endFlagReceiverSpan: UInt64 = 1
    /// Bit 1 (set only with bit 0, by a client of an authenticated cell) asks for
    /// `unauthenticated` after `spanNs`: the datagrams the server dropped for a bad tag.
    static let endFlagUnauthenticated: UInt64 = 2

    /// The REPORT's `spanNs`: from the first received DATA datagram's arrival to the
    /// last one's; nil when the REPORT has none (a server from before it).
    static func span(_ r: [UInt64]) -> UInt64? {
        guard r.count >= firstField + 2 else { return nil }
        let n = Int(clamping: r[firstField + 1])
        let end = firstField + 2 + 2 * n
        return n >= 0 && (r.count == end + 1 || r.count == end + 2) ? r[end] : nil
    }

    /// The REPORT's `unauthenticated` (after `spanNs`); nil when it has none.
    static func unauthenticated(_ r: [UInt64]) -> UInt64? {
        guard r.count >= firstField + 2 else { return nil }
        let n = Int(clamping: r[firstField + 1])
        let end = firstField + 2 + 2 * n
        return n >= 0 && r.count == end + 2 ? r[end + 1] : nil
    }

    static func fields(_ series: BulkSeries?) -> [UInt64] {
        guard let series else { return [0, 0] }
        return [series.intervalNanos, UInt64(series.bytes.count)] + series.bytes.map { UInt64($0) }
            + (series.datagrams ?? series.bytes.map { _ in 0 }).map { UInt64($0) }
    }

    /// The series in a REPORT's fields; nil when it has none (no DATA arrived) or its
    /// length does not match its count.
    static func decode(_ r: [UInt64]) -> BulkSeries? {
        guard r.count >= firstField + 2 else { return nil }
        let interval = r[firstField], n = Int(clamping: r[firstField + 1])
        let end = firstField + 2 + 2 * n
        guard n > 0, interval > 0, r.count >= end, r.count <= end + 2 else { return nil }
        let values = r[(firstField + 2)..<end].map { Int(clamping: $0) }
        return BulkSeries(intervalNanos: interval, bytes: Array(values.prefix(n)), datagrams: Array(values.suffix(n)))
    }
}
