import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

extension ReportFigures {
    /// `report --measured`: per row of each `compare --measured` table, the measured tests
    /// and the emulated records side by side as box plots, one metric at a time (a
    /// drop-down). Vega-Lite's box plot takes its quartiles by the same type-7 rule as the
    /// table, so the boxes are the table's [q1, q3] and the line in them its median.
    static func measured(_ c: MeasuredComparison) -> ReportFigure {
        let name = "measured-vs-emulated", title = "Field measurements vs emulated runs"
        let caption =
            "Per transport x place (x distance, or x message count and size), the measured tests (the --measured CSV files) and the emulated "
            + "records of these runs side by side, on the metric picked above: box from q1 to q3 (linear interpolation, type 7), the line in it the median, "
            + "whiskers to the furthest value within 1.5 IQR, on a log scale (values of 0 are left out of the figure, not of the table). "
            + "An emulated median inside the measured box is what `compare --measured` counts as inside."
        var rows: [JSONValue] = []
        var metrics: [String] = []
        // Each row's measured box right above its emulated one: the aggregate would otherwise order them by side.
        var order: [String] = []
        for t in c.tables {
            for r in t.rows {
                let group = label(r, metric: t.metric)
                for (side, values) in [("measured", r.measured), ("emulated", r.emulated)] {
                    if !order.contains("\(group) · \(side)") { order.append("\(group) · \(side)") }
                    for v in values {
                        rows.append([
                            "metric": .string(t.metric.title), "group": .string(group), "side": .string(side),
                            "row": .string("\(group) · \(side)"), "value": .number(v),
                        ])
                    }
                }
            }
            if !metrics.contains(t.metric.title) { metrics.append(t.metric.title) }
        }
        guard !rows.isEmpty, !metrics.isEmpty else {
            return ReportFigure(name: name, title: title, caption: caption, missing: "The measured files have no row to draw.")
        }
        let spec: JSONValue = [
            "$schema": ReportFigure.schema,
            "params": [ReportFigure.pick("metric", label: "metric", options: metrics)],
            "data": ["values": .array(rows)],
            "transform": [["filter": "datum.metric == metric && datum.value > 0"]],
            "width": 520,
            "mark": ["type": "boxplot", "extent": 1.5],
            "encoding": [
                "y": ["field": "row", "type": "nominal", "sort": .array(order.map { .string($0) }), "title": nil],
                "x": ["field": "value", "type": "quantitative", "title": "value (ms or Mbit/s, as the metric)", "scale": ["type": "log"]],
                "color": [
                    "field": "side", "type": "nominal", "title": nil,
                    "scale": ["domain": ["measured", "emulated"], "range": ["#4c78a8", "#f58518"]],
                ],
            ],
        ]
        return ReportFigure(name: name, title: title, caption: caption, spec: spec)
    }

    static func label(_ r: MeasuredComparison.Row, metric: MeasuredComparison.Metric) -> String {
        switch metric {
        case .rttMeanMs, .rttJitterMs: "\(r.transport) · \(r.place ?? "-")"
        case .transferMbps: "\(r.transport) · \(r.place ?? "-") · \(r.distanceM.map { JSONValue.format($0) } ?? "-") m"
        case .transferByPayloadMbps: "\(r.transport) · \(r.count.map(String.init) ?? "-") x \(r.size.map(String.init) ?? "-") B"
        }
    }
}
