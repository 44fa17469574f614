public import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

/// One finished cell, schema `peerbench.record/5` (docs/RECORDS.md documents every field).
///
/// This type IS the schema: records.jsonl is its encoding, records.csv's columns are
/// derived from it (`RecordsCSV`), and readers decode it. Every record has the same
/// keys whatever the transport; a value that does not apply is `null`, never missing
/// (`encode(to:)` writes every key). To add a field, add it here: JSONL, CSV and the
/// readers follow.
public struct Record: Sendable, Equatable, Codable {
    /// The schema this version writes. `/2` added `rtt_loaded_ms` and `responsiveness_rpm`;
    /// `/3` added the remote link's context (`link.peer_address` ... `link.control_rtt_ms`),
    /// the platform's link choices (`link.performance_mode` ... `link.energy_mj`),
    /// `scenario` and `cross_traffic`; `/4` added `rtt_method` and `receiver_span_mbps`;
    /// `/5` added `congestion_control` and `cpu_seconds`; `/6` added the workload's
    /// `workload`, `throughput_by_direction_mbps`, `delivery_by_direction`,
    /// `request_response_ms`, `frames` and `frame_delay_ms`.
    public static let currentSchema = "peerbench.record/6"
    /// The schemas this version reads: older records are newer ones without the keys
    /// added since (they read as `null`, `scenario` as `static`), so runs written before
    /// a bump can still be resumed, merged and compared.
    public static let readableSchemas: Set<String> = [
        "peerbench.record/1", "peerbench.record/2", "peerbench.record/3",
        "peerbench.record/4", "peerbench.record/5",
        "peerbench.record/6",
    ]

    public var schema: String
    public var runID: String
    public var cellID: String
    public var repetition: Int
    public var seed: UInt64
    public var transport: Transport
    public var environment: String
    public var distanceM: Double?
    public var distanceLabel: String
    public var payload: Payload?
    public var link: Link
    public var status: CellStatus
    public var error: String?
    /// RFC 3339 with fractional seconds.
    public var startedAt: String
    public var connectMs: Double?
    public var bulkSeconds: Double?
    public var totalSeconds: Double
    public var rttMs: RTTStats?
    /// How the probes behind `rttMs` were sent (`ping-pong`, `pipelined`); nil when no
    /// RTT probe ran (and in records before /4).
    public var rttMethod: RTTMethod?
    /// RTT probes sent during the bulk phase (option `loadedRttProbes`), same shape as `rttMs`.
    public var rttLoadedMs: RTTStats?
    /// Round trips per minute under load: 60 000 / the median loaded RTT in ms.
    public var responsivenessRpm: Double?
    public var jitterMs: Jitter
    public var throughputMbps: Double?
    /// The field study's data rate: bytes received x 8 / (arrival of the last message -
    /// arrival of the first) on the receiver, Mbit/s; nil below two messages received,
    /// for a zero span, or where the transport does not report the span.
    public var receiverSpanMbps: Double?
    /// The congestion controller in force (tcp/tls read back from the socket, quic's
    /// ngtcp2 setting); nil for transports without one (udp, uwb) or that cannot tell.
    public var congestionControl: String?
    /// CPU time (user + system) each side of the plugin spent in the cell, seconds: its
    /// threads' own CPU clocks (`CPUAccount`), so neither the emulator nor the runner
    /// counts. Both null when not measured (a cell that failed before measuring, exec);
    /// the record is nil only when read from a schema before /5.
    public var cpuSeconds: EndPair?
    public var delivery: DeliveryStats?
    /// What the application sent (docs/WORKLOADS.md): the matrix's workload entry as
    /// resolved, `{name, kind, direction, streams, ...}`; the plain upload when the
    /// matrix has no `workloads`. null for transports without a payload (uwb) and in
    /// records before /6.
    public var workload: JSONValue?
    /// Each direction's throughput when data moved down or both ways (`{up, down}`,
    /// Mbit/s, null for a direction that moved nothing); `throughput_mbps` is the total.
    var throughputByDirectionMbps: ByDirection<Double>?
    /// Each direction's counts, same shape as `delivery`, when data moved down or both ways.
    var deliveryByDirection: ByDirection<DeliveryStats>?
    /// Request-response: the transaction times (request written to response read), ms.
    public var requestResponseMs: RTTStats?
    /// Isochronous: the frames sent, received, late and lost.
    public var frames: Frames?
    /// Isochronous: each received frame's delay against its sending schedule, ms.
    public var frameDelayMs: RTTStats?
    /// How the link changed during the cell and how the transport coped (`static`: no
    /// change, figures null). Every record written since /3 has it; nil only when read
    /// from an older schema.
    public var scenario: Scenario?
    /// The competing background flow of the bulk phase (matrix key `crossTraffic`): every
    /// key null without one. nil only when read from a schema before /3.
    public var crossTraffic: CrossTraffic?
    /// Matrix key `transportsAtOnce`: the labels of the other transports that ran at the
    /// same time over the same emulated link as this cell (same link set-up, same
    /// emulator, same counters). null when the cell had the link to itself — always in a
    /// run without the key; absent (read as null) in records written before the key existed.
    public var sharedLinkWith: [String]?
    public var extra: JSONObject

    /// What the plugin measured, kept beside the record in memory for the raw samples
    /// and the progress line; not part of the record's JSON.
    public var measurement: TransportMeasurement?

    public struct Transport: Sendable, Equatable, Codable {
        public var plugin: String
        public var label: String
        /// The effective options (defaults filled in).
        public var options: JSONValue

        public enum CodingKeys: String, CodingKey { case plugin, label, options }
    }

    /// The resolved link and the emulator's counters: its own type (`RecordLink`) because the
    /// testbed, beneath the records, fills part of it (`Testbed.annotate`).
    public typealias Link = RecordLink

    public struct RTTStats: Sendable, Equatable, Codable {
        public var count: Int
        public var min: Double
        public var mean: Double
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var max: Double
        public var stddev: Double

        public enum CodingKeys: String, CodingKey { case count, min, mean, p50, p90, p99, max, stddev }

        init(_ s: RTTSummary) {
            self.init(count: s.count, min: s.min, mean: s.mean, p50: s.p50, p90: s.p90, p99: s.p99, max: s.max, stddev: s.stddev)
        }

        init(count: Int, min: Double, mean: Double, p50: Double, p90: Double, p99: Double, max: Double, stddev: Double) {
            self.count = count
            self.min = min
            self.mean = mean
            self.p50 = p50
            self.p90 = p90
            self.p99 = p99
            self.max = max
            self.stddev = stddev
        }
    }

    public struct Jitter: Sendable, Equatable, Codable {
        /// Mean |RTT_i - RTT_i-1|, ms.
        public var ipdvMean: Double?
        /// RFC 3550 interarrival jitter from one-way data, ms.
        public var rfc3550: Double?

        public enum CodingKeys: String, CodingKey { case ipdvMean = "ipdv_mean", rfc3550 }
    }

    /// A figure per direction of a workload that moved data down or both ways.
    struct ByDirection<T: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
        var up: T?
        var down: T?
    }

    public struct Frames: Sendable, Equatable, Codable {
        public var sent: Int
        public var received: Int
        public var late: Int
        public var lost: Int
        public var deadlineMs: Double
        public enum CodingKeys: String, CodingKey { case sent, received, late, lost, deadlineMs = "deadline_ms" }
    }

    public struct DeliveryStats: Sendable, Equatable, Codable {
        public var sentMessages: Int
        public var receivedMessages: Int
        public var sentBytes: Int
        public var receivedBytes: Int
        public var lossRatio: Double
        public var reordered: Int
        public var duplicated: Int

        public enum CodingKeys: String, CodingKey {
            case sentMessages = "sent_messages", receivedMessages = "received_messages", sentBytes = "sent_bytes"
            case receivedBytes = "received_bytes", lossRatio = "loss_ratio", reordered, duplicated
        }

        init(_ d: Delivery) {
            self.init(
                sentMessages: d.sentMessages, receivedMessages: d.receivedMessages, sentBytes: d.sentBytes,
                receivedBytes: d.receivedBytes, lossRatio: d.lossRatio, reordered: d.reordered, duplicated: d.duplicated)
        }

        init(sentMessages: Int, receivedMessages: Int, sentBytes: Int, receivedBytes: Int, lossRatio: Double, reordered: Int, duplicated: Int) {
            self.sentMessages = sentMessages
            self.receivedMessages = receivedMessages
            self.sentBytes = sentBytes
            self.receivedBytes = receivedBytes
            self.lossRatio = lossRatio
            self.reordered = reordered
            self.duplicated = duplicated
        }
    }

    /// The record of `cell`: every summary is computed here, once, from the measurement.
    public init(
        runID: String, cell: Cell, link: ResolvedLink, linkMode: LinkMode, counters: LinkCounters?, status: CellStatus,
        error: String?, startedAt: Date, totalSeconds: Double, measurement: TransportMeasurement?
    ) {
        let m = measurement
        let rtt = m.flatMap { RTTSummary(nanoseconds: $0.rttNanos) }
        schema = Record.currentSchema
        self.runID = runID
        cellID = cell.id
        repetition = cell.repetition
        seed = cell.seed
        transport = Transport(plugin: cell.transport.plugin, label: cell.transport.label, options: cell.transport.effectiveOptions)
        environment = cell.environment.name
        distanceM = link.distanceMeters
        distanceLabel = cell.distance.label
        payload = cell.payload
        self.link = Link(
            mode: linkMode, delayMs: link.delayMs, jitterMs: link.jitterMs, lossPercent: link.lossPercent,
            rateMbps: link.rateMbps, mtu: link.mtu, rssiDbm: link.rssiDbm, snrDb: link.snrDb, mcs: link.mcs,
            phyRateMbps: link.phyRateMbps, packetsUp: counters?.packetsUp, packetsDown: counters?.packetsDown,
            bytesUp: counters?.bytesUp, bytesDown: counters?.bytesDown, dropsUp: counters?.dropsUp,
            dropsDown: counters?.dropsDown)
        scenario = .static
        crossTraffic = CrossTraffic()
        self.status = status
        self.error = error
        self.startedAt = Record.rfc3339(startedAt)
        connectMs = m?.connectNanos.map { Double($0) / 1e6 }
        bulkSeconds = m?.bulkNanos.map { Double($0) / 1e9 }
        self.totalSeconds = totalSeconds
        rttMs = rtt.map(RTTStats.init)
        // Null when no probe ran (`rttProbes` 0, a cell `rttPayloads` leaves out): the
        // plugins name their method before they know whether any probe goes out.
        rttMethod = m.flatMap { m in (m.probesSent ?? m.rttNanos.count) > 0 ? m.rttMethod ?? .pingPong : nil }
        let loaded = m?.rttLoadedNanos.flatMap { RTTSummary(nanoseconds: $0) }
        rttLoadedMs = loaded.map(RTTStats.init)
        responsivenessRpm = loaded.flatMap { $0.p50 > 0 ? 60_000 / $0.p50 : nil }
        jitterMs = Jitter(ipdvMean: rtt?.ipdvMean, rfc3550: m?.rfc3550JitterMs)
        if let m, let d = m.delivery, let ns = m.bulkNanos, ns > 0 {
            throughputMbps = Double(d.receivedBytes) * 8 / (Double(ns) / 1e9) / 1e6
        } else {
            throughputMbps = nil
        }
        if let m, let d = m.delivery, let span = m.receiverSpanNanos, span > 0, d.receivedMessages >= 2 {
            receiverSpanMbps = Double(d.receivedBytes) * 8 / (Double(span) / 1e9) / 1e6
        } else {
            receiverSpanMbps = nil
        }
        congestionControl = m?.congestionControl
        cpuSeconds = m?.cpuSeconds ?? EndPair(client: nil, server: nil)
        delivery = m?.delivery.map(DeliveryStats.init)
        workload = cell.transport.usesPayload ? cell.workload.resolvedJSON : nil
        extra = Record.extra(of: m, counters: counters)
        self.measurement = measurement
        summarizeWorkload(m)
    }

    /// What a workload other than the upload measured (docs/WORKLOADS.md): each
    /// direction's figures, the transaction times, the frames.
    private mutating func summarizeWorkload(_ m: TransportMeasurement?) {
        if let flows = m?.byDirection {
            throughputByDirectionMbps = ByDirection(up: flows.up?.throughputMbps, down: flows.down?.throughputMbps)
            deliveryByDirection = ByDirection(up: flows.up.map { DeliveryStats($0.delivery) }, down: flows.down.map { DeliveryStats($0.delivery) })
        }
        requestResponseMs = m?.transactionNanos.flatMap { RTTSummary(nanoseconds: $0) }.map(RTTStats.init)
        if let f = m?.frames {
            frames = Frames(sent: f.sent, received: f.received, late: f.late, lost: f.lost, deadlineMs: Double(f.deadlineNanos) / 1e6)
            frameDelayMs = RTTSummary(nanoseconds: f.delayNanos).map(RTTStats.init)
        }
    }

    /// The plugin's own extra figures, plus how many probes went unanswered and why the
    /// link dropped packets, where there is something to say.
    private static func extra(of m: TransportMeasurement?, counters: LinkCounters?) -> JSONObject {
        var extra = m?.extra ?? JSONObject()
        if let m, let sent = m.probesSent, sent != m.rttNanos.count {
            extra["rtt_probes"] = ["sent": JSONValue(sent), "answered": JSONValue(m.rttNanos.count)]
        }
        if let events = m?.reconnects, !events.isEmpty { extra["reconnect"] = reconnectDetail(events) }
        if let c = counters, !c.dropCauses.isEmpty {
            var causes = JSONObject()
            for (k, v) in c.dropCauses.sorted(by: { $0.key < $1.key }) { causes[k] = JSONValue(v) }
            extra["link_drops"] = .object(causes)
        }
        if let air = counters?.air {
            func side(_ a: AirCounters) -> JSONValue {
                [
                    "aggregates": JSONValue(a.aggregates), "mpdus": JSONValue(a.mpdus),
                    "mpdus_per_aggregate": JSONValue(a.aggregates > 0 ? (Double(a.mpdus) / Double(a.aggregates) * 100).rounded() / 100 : 0),
                    "window_wait_ms": JSONValue((Double(a.windowWaitNanos) / 1e4).rounded() / 100),
                ]
            }
            extra["link_air"] = ["up": side(air.up), "down": side(air.down)]
        }
        return extra
    }

    /// `extra.reconnect` of a cell that re-made its connection (`reconnect`), in any
    /// cell, a static one too: how many times, the attempts each took, and from the
    /// client's noticing the loss to the first byte on the new connection, ms.
    private static func reconnectDetail(_ events: [ReconnectEvent]) -> JSONValue {
        let ms = events.map { JSONValue(Double($0.resumedAtNanos &- $0.lostAtNanos) / 1e6) }
        return [
            "count": JSONValue(events.count), "attempts": .array(events.map { JSONValue($0.attempts) }),
            "lost_to_resumed_ms": .array(ms), "resent_bytes": JSONValue(events.reduce(0) { $0 + $1.resentBytes }),
        ]
    }

    /// The key a journal files this record under (the last record of a key wins).
    public var key: RecordKey { RecordKey(runID: runID, cellID: cellID, repetition: repetition) }

    /// The record as JSON, every key present.
    public var json: JSONValue {
        // Encoding a record cannot fail: every integer in it is below 2^53 (seeds are 53-bit).
        (try? JSONCoding.encode(self)) ?? .null
    }

    /// Reads a record from one journal line's JSON; throws naming what is missing or wrong.
    public init(json: JSONValue) throws {
        self = try JSONCoding.decode(Record.self, from: json)
    }

    /// The top-level keys every record carries, in order.
    public static let topLevelKeys = CodingKeys.allCases.map(\.stringValue)

    public static func == (a: Record, b: Record) -> Bool { a.json == b.json }

    /// The record's keys, each spelled here once, in the order a record writes them.
    /// Readers take their keys from these and from the nested types' `CodingKeys`
    /// (`Record.RTTStats.CodingKeys.p50`, `Record.Scenario.CodingKeys.reconnectMs`, ...),
    /// never from a string of their own: `RecordLine`, compare's metrics, the report.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case schema, runID = "run_id", cellID = "cell_id", repetition, seed, transport, environment, distanceM = "distance_m"
        case distanceLabel = "distance_label", payload, link, status, error, startedAt = "started_at", connectMs = "connect_ms"
        case bulkSeconds = "bulk_seconds", totalSeconds = "total_seconds", rttMs = "rtt_ms", rttMethod = "rtt_method"
        case rttLoadedMs = "rtt_loaded_ms", responsivenessRpm = "responsiveness_rpm", jitterMs = "jitter_ms"
        case throughputMbps = "throughput_mbps", receiverSpanMbps = "receiver_span_mbps",
            congestionControl = "congestion_control", cpuSeconds = "cpu_seconds", delivery, workload,
            throughputByDirectionMbps = "throughput_by_direction_mbps", deliveryByDirection = "delivery_by_direction",
            requestResponseMs = "request_response_ms", frames, frameDelayMs = "frame_delay_ms", scenario, crossTraffic = "cross_traffic",
            sharedLinkWith = "shared_link_with", extra
    }

    public static func rfc3339(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}
