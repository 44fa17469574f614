import PeerBenchPlugin
import PeerBenchSystem

/// The body of a stream REPORT (docs/protocol/tcp.md): what the server received in
/// the bulk phase and when. Fixed part: messages u64, bytes u64, interval ns u64,
/// entries u32; then one u64 per interval (DATA body bytes received in it); then, only
/// when the client's END asked for it (`StreamFraming.endFlagReceiverSpan`), span ns u64.
/// A peer from before the span neither asks for it nor sends it, so both sides of a
/// mixed pair read the REPORT they expect.
public struct StreamReport: Sendable, Equatable {
    public var messages: Int
    public var bytes: Int
    /// The receiver's series; nil (zero entries on the wire) when no DATA arrived.
    public var series: BulkSeries?
    /// From the arrival of the first DATA message to that of the last, on the server's
    /// monotonic clock (0 below two messages); nil when the REPORT does not carry it.
    public var spanNanos: UInt64?

    public init(messages: Int, bytes: Int, series: BulkSeries?, spanNanos: UInt64? = nil) {
        self.messages = messages
        self.bytes = bytes
        self.series = series
        self.spanNanos = spanNanos
    }

    /// Decodes a REPORT body; nil when its length does not match its entry count.
    public init?(_ body: [UInt8]) {
        guard body.count >= 28 else { return nil }
        let parsed: StreamReport? = body.withUnsafeBytes { p in
            let interval = p.readBE(UInt64.self, at: 16)
            let n = Int(p.readBE(UInt32.self, at: 24))
            let seriesEnd = 28 + 8 * n
            guard body.count == seriesEnd || body.count == seriesEnd + 8, n == 0 || interval > 0 else { return nil }
            let entries = (0..<n).map { Int(clamping: p.readBE(UInt64.self, at: 28 + 8 * $0)) }
            return StreamReport(
                messages: Int(clamping: p.readBE(UInt64.self, at: 0)), bytes: Int(clamping: p.readBE(UInt64.self, at: 8)),
                series: n == 0 ? nil : BulkSeries(intervalNanos: interval, bytes: entries),
                spanNanos: body.count == seriesEnd + 8 ? p.readBE(UInt64.self, at: seriesEnd) : nil)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The whole REPORT frame, header included.
    public func frame() -> [UInt8] {
        let entries = series?.bytes ?? []
        var fields: [any FixedWidthInteger] = [UInt64(messages), UInt64(bytes), series?.intervalNanos ?? 0, UInt32(entries.count)]
        fields += entries.map { UInt64($0) }
        if let spanNanos { fields.append(spanNanos) }
        return StreamFraming.controlFrame(.report, fields)
    }
}
