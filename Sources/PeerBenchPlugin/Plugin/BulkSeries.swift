/// What the receiver got during the bulk phase, per fixed interval from the first bulk
/// byte: `bytes[i]` application bytes (and, for datagram transports, `datagrams[i]`
/// datagrams) arrived in `[i * interval, (i + 1) * interval)`.
public struct BulkSeries: Sendable, Equatable, Codable {
    /// 100 ms: the interval unless the plugin says otherwise.
    public static let defaultIntervalNanos: UInt64 = 100_000_000

    /// The interval, nanoseconds.
    public var intervalNanos: UInt64
    /// Application bytes per interval, and datagrams per interval (nil for streams).
    public var bytes: [Int], datagrams: [Int]?

    public init(intervalNanos: UInt64 = BulkSeries.defaultIntervalNanos, bytes: [Int] = [], datagrams: [Int]? = nil) {
        self.intervalNanos = intervalNanos
        self.bytes = bytes
        self.datagrams = datagrams
    }

    enum CodingKeys: String, CodingKey { case intervalNanos = "interval_ns", bytes, datagrams }
}
