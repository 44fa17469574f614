/// Transports head-to-head: records grouped by environment x distance x payload, one
/// row per transport with its medians over repetitions, and the winner of each metric.
public struct Comparison: Sendable {
    public struct Group: Sendable {
        public var environment: String
        public var distanceLabel: String
        /// `"100x128"`, or `"-"` for transports without payloads.
        public var payload: String
        public var rows: [Row]
        /// Label of the best transport per metric (nil when no transport has the metric).
        public var bestThroughput: String?
        public var bestRTT: String?
        public var bestJitter: String?
        public var bestLoss: String?
    }

    public struct Row: Sendable {
        public var label: String
        public var runs: Int
        public var ok: Int
        public var throughputMbps: Double?
        public var rttP50: Double?
        public var rttP99: Double?
        public var jitterMs: Double?
        public var lossRatio: Double?
    }

    public var groups: [Group]

    /// Groups records (from one or several runs). Metrics are medians over the `ok` and
    /// `partial` records of each transport; failed cells only count in `runs`.
    public init(records: [JSONValue]) {
        let records = Comparison.latest(records)
        var order: [String] = []
        var buckets: [String: (env: String, dist: String, payload: String, byLabel: [String: [JSONValue]], labels: [String])] = [:]
        for r in records {
            let env = r["environment"]?.stringValue ?? "?"
            let dist = r["distance_label"]?.stringValue ?? "?"
            let payload = r["payload"].flatMap { p -> String? in
                guard let c = p["count"]?.intValue, let s = p["size"]?.intValue else { return nil }
                return "\(c)x\(s)"
            } ?? "-"
            let label = r["transport"]?["label"]?.stringValue ?? "?"
            let key = [env, dist, payload].joined(separator: "\u{1}")
            if buckets[key] == nil {
                order.append(key)
                buckets[key] = (env, dist, payload, [:], [])
            }
            if buckets[key]!.byLabel[label] == nil { buckets[key]!.labels.append(label) }
            buckets[key]!.byLabel[label, default: []].append(r)
        }
        groups = order.map { key in
            let b = buckets[key]!
            let rows = b.labels.map { Comparison.row(label: $0, records: b.byLabel[$0]!) }
            return Group(environment: b.env, distanceLabel: b.dist, payload: b.payload, rows: rows,
                         bestThroughput: Comparison.best(rows, \.throughputMbps, higher: true),
                         bestRTT: Comparison.best(rows, \.rttP50, higher: false),
                         bestJitter: Comparison.best(rows, \.jitterMs, higher: false),
                         bestLoss: Comparison.best(rows, \.lossRatio, higher: false))
        }
    }

    static func row(label: String, records: [JSONValue]) -> Row {
        let usable = records.filter { ["ok", "partial"].contains($0["status"]?.stringValue ?? "") }
        func median(_ get: (JSONValue) -> Double?) -> Double? {
            let xs = usable.compactMap(get).sorted()
            guard !xs.isEmpty else { return nil }
            return xs.count % 2 == 1 ? xs[xs.count / 2] : (xs[xs.count / 2 - 1] + xs[xs.count / 2]) / 2
        }
        return Row(label: label, runs: records.count, ok: usable.count,
                   throughputMbps: median { $0["throughput_mbps"]?.doubleValue },
                   rttP50: median { $0["rtt_ms"]?["p50"]?.doubleValue },
                   rttP99: median { $0["rtt_ms"]?["p99"]?.doubleValue },
                   jitterMs: median { $0["jitter_ms"]?["rfc3550"]?.doubleValue ?? $0["jitter_ms"]?["ipdv_mean"]?.doubleValue },
                   lossRatio: median { $0["delivery"]?["loss_ratio"]?.doubleValue })
    }

    /// The best row for a metric; nil unless at least two transports have it (a
    /// "winner" of one is no comparison) and they are not all equal.
    static func best(_ rows: [Row], _ metric: KeyPath<Row, Double?>, higher: Bool) -> String? {
        let scored = rows.compactMap { r in r[keyPath: metric].map { (r.label, $0) } }
        guard scored.count >= 2 else { return nil }
        let values = scored.map(\.1)
        guard values.max()! != values.min()! else { return nil }
        return (higher ? scored.max { $0.1 < $1.1 } : scored.min { $0.1 < $1.1 })!.0
    }
}

extension Comparison {
    /// A journal can hold several records of one cell (a `--retry-failed` rerun keeps
    /// the failed attempt as history): the last one of each run, cell and repetition
    /// is the cell's outcome. Records of different runs all count.
    static func latest(_ records: [JSONValue]) -> [JSONValue] {
        var lastIndex: [String: Int] = [:]
        for (i, r) in records.enumerated() {
            guard let id = r["cell_id"]?.stringValue, let rep = r["repetition"]?.intValue else { continue }
            lastIndex["\(r["run_id"]?.stringValue ?? "")|\(id)|\(rep)"] = i
        }
        return records.enumerated().filter { i, r in
            guard let id = r["cell_id"]?.stringValue, let rep = r["repetition"]?.intValue else { return true }
            return lastIndex["\(r["run_id"]?.stringValue ?? "")|\(id)|\(rep)"] == i
        }.map(\.element)
    }
}
