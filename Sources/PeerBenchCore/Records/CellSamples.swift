/// The raw material behind a record's summaries, one line of `samples.jsonl` per
/// record (schema `peerbench.samples/1`, docs/RECORDS.md). A line joins its record by
/// `run_id`, `cell_id` and `repetition`. Sizes are bounded: probes are at most
/// `rttProbes` values, the bulk series one value per 100 ms, never one per message.
public struct CellSamples: Sendable, Equatable, Codable {
    public static let schema = "peerbench.samples/1"

    public var schema: String
    public var runID: String
    public var cellID: String
    public var repetition: Int
    /// Every answered RTT probe, nanoseconds, in send order (before the bulk phase).
    public var rttNanos: [UInt64]
    /// RTT probes sent during the bulk phase (latency under load), nanoseconds, in send order; nil when not measured.
    @NullWhenAbsent public var rttLoadedNanos: [UInt64]?
    /// Receiver-side bulk time series; nil where the plugin has none (uwb) or the cell never reached its bulk phase.
    @NullWhenAbsent public var bulkSeries: BulkSeries?
    /// Every ranging update of an emulated UWB session; nil for other plugins.
    @NullWhenAbsent public var ranging: [RangingUpdateSample]?

    public init(runID: String, cellID: String, repetition: Int, rttNanos: [UInt64], rttLoadedNanos: [UInt64]? = nil,
                bulkSeries: BulkSeries? = nil, ranging: [RangingUpdateSample]? = nil) {
        self.schema = CellSamples.schema
        self.runID = runID
        self.cellID = cellID
        self.repetition = repetition
        self.rttNanos = rttNanos
        self.rttLoadedNanos = rttLoadedNanos
        self.bulkSeries = bulkSeries
        self.ranging = ranging
    }

    enum CodingKeys: String, CodingKey {
        case schema, runID = "run_id", cellID = "cell_id", repetition, rttNanos = "rtt_ns", rttLoadedNanos = "rtt_loaded_ns"
        case bulkSeries = "bulk_series", ranging
    }
}

/// What the receiver got during the bulk phase, per fixed interval from the first bulk
/// byte: `bytes[i]` application bytes (and, for datagram transports, `datagrams[i]`
/// datagrams) arrived in `[i * interval, (i + 1) * interval)`.
public struct BulkSeries: Sendable, Equatable, Codable {
    public static let defaultIntervalNanos: UInt64 = 100_000_000

    public var intervalNanos: UInt64
    public var bytes: [Int]
    @NullWhenAbsent public var datagrams: [Int]?

    public init(intervalNanos: UInt64 = BulkSeries.defaultIntervalNanos, bytes: [Int] = [], datagrams: [Int]? = nil) {
        self.intervalNanos = intervalNanos
        self.bytes = bytes
        self.datagrams = datagrams
    }

    enum CodingKeys: String, CodingKey { case intervalNanos = "interval_ns", bytes, datagrams }
}

/// One ranging update of an emulated Nearby Interaction session.
public struct RangingUpdateSample: Sendable, Equatable, Codable {
    /// Nanoseconds since the session started running.
    public var tNanos: UInt64
    /// Reported distance, metres; nil when the update carried none (peer out of reach, suspended).
    @NullWhenAbsent public var distanceM: Double?
    /// Reported minus true distance, metres; nil without a distance.
    @NullWhenAbsent public var errorM: Double?
    /// Whether the update carried a direction.
    public var directionAvailable: Bool

    public init(tNanos: UInt64, distanceM: Double?, errorM: Double?, directionAvailable: Bool) {
        self.tNanos = tNanos
        self.distanceM = distanceM
        self.errorM = errorM
        self.directionAvailable = directionAvailable
    }

    enum CodingKeys: String, CodingKey {
        case tNanos = "t_ns", distanceM = "distance_m", errorM = "error_m", directionAvailable = "direction_available"
    }
}
