public import Foundation

/// One finished cell, schema `peerbench.record/1` (docs/RECORDS.md documents every field).
///
/// Every record has the same top-level keys whatever the transport; a value that
/// does not apply is `null`, never missing.
public struct Record: Sendable {
    public static let schema = "peerbench.record/1"

    public var runID: String
    public var cell: Cell
    public var link: ResolvedLink
    public var linkMode: LinkMode
    public var counters: LinkCounters?
    public var status: CellStatus
    public var error: String?
    public var startedAt: Date
    public var totalSeconds: Double
    public var measurement: TransportMeasurement?

    public init(runID: String, cell: Cell, link: ResolvedLink, linkMode: LinkMode, counters: LinkCounters?, status: CellStatus,
                error: String?, startedAt: Date, totalSeconds: Double, measurement: TransportMeasurement?) {
        self.runID = runID
        self.cell = cell
        self.link = link
        self.linkMode = linkMode
        self.counters = counters
        self.status = status
        self.error = error
        self.startedAt = startedAt
        self.totalSeconds = totalSeconds
        self.measurement = measurement
    }

    /// Application payload delivered over the bulk duration, Mbit/s (10^6 bit/s).
    public var throughputMbps: Double? {
        guard let m = measurement, let d = m.delivery, let ns = m.bulkNanos, ns > 0 else { return nil }
        return Double(d.receivedBytes) * 8 / (Double(ns) / 1e9) / 1e6
    }

    public var json: JSONValue {
        let m = measurement
        let rtt = m.flatMap { RTTSummary(nanoseconds: $0.rttNanos) }
        var o = JSONObject()
        o["schema"] = .string(Record.schema)
        o["run_id"] = .string(runID)
        o["cell_id"] = .string(cell.id)
        o["repetition"] = JSONValue(cell.repetition)
        o["seed"] = JSONValue(cell.seed)
        o["transport"] = ["plugin": .string(cell.transport.plugin), "label": .string(cell.transport.label),
                          "options": cell.transport.effectiveOptions]
        o["environment"] = .string(cell.environment.name)
        o["distance_m"] = JSONValue(link.distanceMeters)
        o["distance_label"] = .string(cell.distance.label)
        o["payload"] = cell.payload.map { ["count": JSONValue($0.count), "size": JSONValue($0.size)] } ?? .null
        o["link"] = linkJSON
        o["status"] = .string(status.rawValue)
        o["error"] = JSONValue(error)
        o["started_at"] = .string(Record.rfc3339(startedAt))
        o["connect_ms"] = JSONValue(m?.connectNanos.map { Double($0) / 1e6 })
        o["bulk_seconds"] = JSONValue(m?.bulkNanos.map { Double($0) / 1e9 })
        o["total_seconds"] = .number(totalSeconds)
        o["rtt_ms"] = rtt.map {
            ["count": JSONValue($0.count), "min": .number($0.min), "mean": .number($0.mean), "p50": .number($0.p50),
             "p90": .number($0.p90), "p99": .number($0.p99), "max": .number($0.max), "stddev": .number($0.stddev)]
        } ?? .null
        o["jitter_ms"] = ["ipdv_mean": JSONValue(rtt?.ipdvMean), "rfc3550": JSONValue(m?.rfc3550JitterMs)]
        o["throughput_mbps"] = JSONValue(throughputMbps)
        o["delivery"] = m?.delivery.map {
            ["sent_messages": JSONValue($0.sentMessages), "received_messages": JSONValue($0.receivedMessages),
             "sent_bytes": JSONValue($0.sentBytes), "received_bytes": JSONValue($0.receivedBytes),
             "loss_ratio": .number($0.lossRatio), "reordered": JSONValue($0.reordered), "duplicated": JSONValue($0.duplicated)]
        } ?? .null
        var extra = m?.extra ?? JSONObject()
        if let m, let sent = m.probesSent, sent != m.rttNanos.count {
            extra["rtt_probes"] = ["sent": JSONValue(sent), "answered": JSONValue(m.rttNanos.count)]
        }
        if let c = counters, !c.dropCauses.isEmpty {
            var causes = JSONObject()
            for (k, v) in c.dropCauses.sorted(by: { $0.key < $1.key }) { causes[k] = JSONValue(v) }
            extra["link_drops"] = .object(causes)
        }
        o["extra"] = .object(extra)
        return .object(o)
    }

    private var linkJSON: JSONValue {
        var l = JSONObject()
        l["mode"] = .string(linkMode.rawValue)
        l["delay_ms"] = JSONValue(link.delayMs)
        l["jitter_ms"] = JSONValue(link.jitterMs)
        l["loss_percent"] = JSONValue(link.lossPercent)
        l["rate_mbps"] = JSONValue(link.rateMbps)
        l["mtu"] = JSONValue(link.mtu)
        l["rssi_dbm"] = JSONValue(link.rssiDbm)
        l["snr_db"] = JSONValue(link.snrDb)
        l["mcs"] = JSONValue(link.mcs)
        l["phy_rate_mbps"] = JSONValue(link.phyRateMbps)
        l["packets_up"] = JSONValue(counters?.packetsUp)
        l["packets_down"] = JSONValue(counters?.packetsDown)
        l["bytes_up"] = JSONValue(counters?.bytesUp)
        l["bytes_down"] = JSONValue(counters?.bytesDown)
        l["drops_up"] = JSONValue(counters?.dropsUp)
        l["drops_down"] = JSONValue(counters?.dropsDown)
        return .object(l)
    }

    /// The top-level keys every record carries, in order.
    public static let topLevelKeys = [
        "schema", "run_id", "cell_id", "repetition", "seed", "transport", "environment", "distance_m", "distance_label",
        "payload", "link", "status", "error", "started_at", "connect_ms", "bulk_seconds", "total_seconds", "rtt_ms",
        "jitter_ms", "throughput_mbps", "delivery", "extra",
    ]

    static func rfc3339(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}
