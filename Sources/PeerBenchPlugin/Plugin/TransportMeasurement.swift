import PeerBenchJSON
import PeerBenchSystem

/// What a plugin's client reports for one cell. The runner turns it into a record
/// (statistics, throughput, loss ratio) so every transport is summarised the same way.
public struct TransportMeasurement: Sendable, Equatable, Codable {
    /// Connection set-up (TCP connect, QUIC handshake, UWB token exchange), nanoseconds.
    public var connectNanos: UInt64?
    /// One entry per answered RTT probe, nanoseconds, in send order.
    public var rttNanos: [UInt64] = []
    /// Probes sent (answered or not). Defaults to the number of samples.
    public var probesSent: Int?
    /// How the probes in `rttNanos` were sent: `cell.rttMethod` when the plugin honoured
    /// it, `.pingPong` when it cannot pipeline. nil = not stated: the record then says
    /// `ping-pong` if probes ran (every plugin before `rttMethod` existed ping-ponged).
    public var rttMethod: RTTMethod?
    /// Duration of the bulk phase, nanoseconds: first byte sent to last byte acknowledged
    /// by the receiver's report (so it measures delivery, not buffering).
    public var bulkNanos: UInt64?
    /// Counts of the bulk phase; throughput is `receivedBytes / bulkNanos`.
    public var delivery: Delivery?
    /// The bulk receiver's span (the field study's data rate): from the arrival of the
    /// first message to the arrival of the last, nanoseconds, on the receiver's monotonic
    /// clock, as the server reported it; nil when the transport or the peer does not
    /// report it. The record's `receiver_span_mbps` is `delivery.receivedBytes` over it.
    public var receiverSpanNanos: UInt64?
    /// RFC 3550 interarrival jitter (ms) computed by the receiver from one-way data.
    public var rfc3550JitterMs: Double?
    /// RTT probes answered during the bulk phase (latency under load), nanoseconds, in send order; nil when not measured.
    public var rttLoadedNanos: [UInt64]?
    /// The receiver's time series of the bulk phase (raw samples), as the server reported it.
    public var bulkSeries: BulkSeries?
    /// Every ranging update (uwb), for the raw samples.
    public var ranging: [RangingUpdateSample]?
    /// When the transport declared its peer gone while the cell ran (a UWB removal, a
    /// keepalive's verdict it survived to report), `MonotonicClock` nanoseconds; nil = never.
    /// Scenario cells measure `detect_ms` from it (or from the client's failure).
    public var peerLostAtNanos: UInt64?
    /// Connections the client re-made in the bulk phase (`reconnect`), in order; nil
    /// when the option is off, empty when it is on and the first connection lasted.
    public var reconnects: [ReconnectEvent]?
    /// Connection migrations the client made (quic's `migrate`), in order; nil when the
    /// option is off, empty when it is on and the first path lasted.
    public var migrations: [MigrationEvent]?
    /// Whether the connection that carried the workload used a resumed TLS session or a QUIC resumed/0-RTT handshake; nil = no resumption attempted.
    public var resumed: Bool?
    /// The congestion controller in force for the cell's connection, as the transport
    /// read it back (tcp/tls: `TCP_CONGESTION` of the socket; quic: ngtcp2's); nil where
    /// the transport has none (udp, uwb) or cannot tell (exec).
    public var congestionControl: String?
    /// CPU time (user + system) each side of the plugin spent in the cell, seconds
    /// (`CPUAccount`); set by the runner, not by the plugin. nil for a side not measured.
    public var cpuSeconds: EndPair?
    /// A workload that moves data down or both ways (docs/WORKLOADS.md): each direction's
    /// counts and time; `delivery` and `bulkNanos` then hold the total (the sum, and the
    /// longer of the two times). nil for the upload.
    public var byDirection: DirectionalDelivery?
    /// Request-response: each transaction's time, request written to whole response
    /// read, nanoseconds, in request order; nil for the other kinds.
    public var transactionNanos: [UInt64]?
    /// Isochronous: what the receiving side(s) saw of the frames; nil for the other kinds.
    public var frames: FrameReport?
    /// `ok` unless the plugin knows the workload did not complete (`partial`).
    public var status: CellStatus = .ok
    public var error: String?
    /// Transport-specific detail, recorded under `extra` (for example `extra.tcp`).
    public var extra = JSONObject()

    public init() {}
}

/// Message and byte counts of the bulk phase, as seen by sender and receiver.
public struct Delivery: Sendable, Codable, Equatable {
    public var sentMessages: Int
    public var receivedMessages: Int
    public var sentBytes: Int
    public var receivedBytes: Int
    public var reordered: Int
    public var duplicated: Int

    public init(sentMessages: Int, receivedMessages: Int, sentBytes: Int, receivedBytes: Int, reordered: Int = 0, duplicated: Int = 0) {
        self.sentMessages = sentMessages
        self.receivedMessages = receivedMessages
        self.sentBytes = sentBytes
        self.receivedBytes = receivedBytes
        self.reordered = reordered
        self.duplicated = duplicated
    }

    /// Two flows' deliveries as one: every count added.
    public static func + (a: Delivery, b: Delivery) -> Delivery {
        Delivery(
            sentMessages: a.sentMessages + b.sentMessages, receivedMessages: a.receivedMessages + b.receivedMessages,
            sentBytes: a.sentBytes + b.sentBytes, receivedBytes: a.receivedBytes + b.receivedBytes,
            reordered: a.reordered + b.reordered, duplicated: a.duplicated + b.duplicated)
    }

    /// Fraction of sent messages that never arrived (duplicates do not count as arrivals).
    public var lossRatio: Double {
        guard sentMessages > 0 else { return 0 }
        return max(0, Double(sentMessages - receivedMessages)) / Double(sentMessages)
    }
}

/// Outcome of a cell, as written to the record's `status`.
public enum CellStatus: String, Sendable, Codable, CaseIterable {
    case ok, partial, timeout, failed, unsupported
}

extension TransportMeasurement {
    enum CodingKeys: String, CodingKey {
        case connectNanos = "connect_ns", rttNanos = "rtt_ns", probesSent = "probes_sent", rttMethod = "rtt_method", bulkNanos = "bulk_ns", delivery
        case receiverSpanNanos = "receiver_span_ns"
        case rfc3550JitterMs = "rfc3550_jitter_ms", rttLoadedNanos = "rtt_loaded_ns", bulkSeries = "bulk_series", ranging
        case peerLostAtNanos = "peer_lost_at_ns", congestionControl = "congestion_control", cpuSeconds = "cpu_seconds"
        case status, error, extra
        case reconnects, migrations
        case resumed = "resumed"
        case byDirection = "by_direction", transactionNanos = "transaction_ns", frames
    }
}

extension Delivery {
    enum CodingKeys: String, CodingKey {
        case sentMessages = "sent_messages", receivedMessages = "received_messages", sentBytes = "sent_bytes"
        case receivedBytes = "received_bytes", reordered, duplicated
    }
}
