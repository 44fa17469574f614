import PeerBenchPlugin

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
    public var rttLoadedNanos: [UInt64]?
    /// Receiver-side bulk time series; nil where the plugin has none (uwb) or the cell never reached its bulk phase.
    public var bulkSeries: BulkSeries?
    /// Every ranging update of an emulated UWB session; nil for other plugins.
    public var ranging: [RangingUpdateSample]?
    /// Request-response workload: every answered transaction's time, nanoseconds, in request order; nil for other workloads.
    public var transactionNanos: [UInt64]?
    /// Isochronous workload: every received frame's delay against its schedule, nanoseconds, in arrival order; nil for other workloads.
    public var frameDelayNanos: [UInt64]?

    public init(
        runID: String, cellID: String, repetition: Int, rttNanos: [UInt64], rttLoadedNanos: [UInt64]? = nil,
        bulkSeries: BulkSeries? = nil, ranging: [RangingUpdateSample]? = nil, transactionNanos: [UInt64]? = nil,
        frameDelayNanos: [UInt64]? = nil
    ) {
        self.schema = CellSamples.schema
        self.runID = runID
        self.cellID = cellID
        self.repetition = repetition
        self.rttNanos = rttNanos
        self.rttLoadedNanos = rttLoadedNanos
        self.bulkSeries = bulkSeries
        self.ranging = ranging
        self.transactionNanos = transactionNanos
        self.frameDelayNanos = frameDelayNanos
    }

    enum CodingKeys: String, CodingKey {
        case schema, runID = "run_id", cellID = "cell_id", repetition, rttNanos = "rtt_ns", rttLoadedNanos = "rtt_loaded_ns"
        case bulkSeries = "bulk_series", ranging, transactionNanos = "transaction_ns", frameDelayNanos = "frame_delay_ns"
    }
}

extension CellSamples {
    /// The record the line belongs to.
    public var key: RecordKey { RecordKey(runID: runID, cellID: cellID, repetition: repetition) }
}
