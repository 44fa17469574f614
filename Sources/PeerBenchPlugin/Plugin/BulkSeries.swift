/// What the receiver got during the bulk phase, per fixed interval from the first bulk
/// byte: `bytes[i]` application bytes (and, for datagram transports, `datagrams[i]`
/// datagrams) arrived in `[i * interval, (i + 1) * interval)`.
public struct BulkSeries: Sendable, Equatable, Codable {
    public static let defaultIntervalNanos: UInt64 = 100_000_000

    public var intervalNanos: UInt64
    public var bytes: [Int]
    public var datagrams: [Int]?

    public init(intervalNanos: UInt64 = BulkSeries.defaultIntervalNanos, bytes: [Int] = [], datagrams: [Int]? = nil) {
        self.intervalNanos = intervalNanos
        self.bytes = bytes
        self.datagrams = datagrams
    }

    enum CodingKeys: String, CodingKey { case intervalNanos = "interval_ns", bytes, datagrams }
}
