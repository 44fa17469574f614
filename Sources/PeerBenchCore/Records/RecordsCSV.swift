/// The flat export, records.csv: one row per record, nested fields joined with dots
/// (`rtt_ms.p50`). `extra` is left out (it differs per transport); read the JSONL for it.
public enum RecordsCSV {
    public static let columns = [
        "run_id", "cell_id", "repetition", "seed", "transport.plugin", "transport.label", "environment", "distance_m",
        "distance_label", "payload.count", "payload.size", "link.mode", "link.delay_ms", "link.jitter_ms",
        "link.loss_percent", "link.rate_mbps", "link.mtu", "link.rssi_dbm", "link.snr_db", "link.mcs", "link.phy_rate_mbps",
        "link.packets_up", "link.packets_down", "link.bytes_up", "link.bytes_down", "link.drops_up", "link.drops_down",
        "status", "error", "started_at", "connect_ms", "bulk_seconds", "total_seconds", "rtt_ms.count", "rtt_ms.min",
        "rtt_ms.mean", "rtt_ms.p50", "rtt_ms.p90", "rtt_ms.p99", "rtt_ms.max", "rtt_ms.stddev", "jitter_ms.ipdv_mean",
        "jitter_ms.rfc3550", "throughput_mbps", "delivery.sent_messages", "delivery.received_messages",
        "delivery.sent_bytes", "delivery.received_bytes", "delivery.loss_ratio", "delivery.reordered", "delivery.duplicated",
    ]

    public static var header: String { columns.joined(separator: ",") }

    /// One CSV row for a record object.
    public static func row(_ record: JSONValue) -> String {
        columns.map { column in
            var v: JSONValue? = record
            for part in column.split(separator: ".") { v = v?[String(part)] }
            return field(v ?? .null)
        }.joined(separator: ",")
    }

    static func field(_ v: JSONValue) -> String {
        let text: String
        switch v {
        case .null: return ""
        case .string(let s): text = s
        case .number(let n): return JSONValue.format(n)
        case .bool(let b): return b ? "true" : "false"
        default: text = v.compactText
        }
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }
}

extension String {
    fileprivate func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
