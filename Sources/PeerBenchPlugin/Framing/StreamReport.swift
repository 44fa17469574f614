/// The body of a stream REPORT (docs/protocol/tcp.md): what the server received in
/// the bulk phase and when. Fixed part: messages u64, bytes u64, interval ns u64,
/// entries u32; then one u64 per interval (DATA body bytes received in it).
public struct StreamReport: Sendable, Equatable {
    public var messages: Int
    public var bytes: Int
    /// The receiver's series; nil (zero entries on the wire) when no DATA arrived.
    public var series: BulkSeries?

    public init(messages: Int, bytes: Int, series: BulkSeries?) {
        self.messages = messages
        self.bytes = bytes
        self.series = series
    }

    /// Decodes a REPORT body; nil when its length does not match its entry count.
    public init?(_ body: [UInt8]) {
        guard body.count >= 28 else { return nil }
        let parsed: StreamReport? = body.withUnsafeBytes { p in
            let interval = p.readBE(UInt64.self, at: 16)
            let n = Int(p.readBE(UInt32.self, at: 24))
            guard body.count == 28 + 8 * n, n == 0 || interval > 0 else { return nil }
            let entries = (0..<n).map { Int(clamping: p.readBE(UInt64.self, at: 28 + 8 * $0)) }
            return StreamReport(messages: Int(clamping: p.readBE(UInt64.self, at: 0)), bytes: Int(clamping: p.readBE(UInt64.self, at: 8)),
                                series: n == 0 ? nil : BulkSeries(intervalNanos: interval, bytes: entries))
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The whole REPORT frame, header included.
    public func frame() -> [UInt8] {
        let entries = series?.bytes ?? []
        var fields: [any FixedWidthInteger] = [UInt64(messages), UInt64(bytes), series?.intervalNanos ?? 0, UInt32(entries.count)]
        fields += entries.map { UInt64($0) }
        return StreamFraming.controlFrame(.report, fields)
    }
}
