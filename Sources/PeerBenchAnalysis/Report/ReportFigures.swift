import PeerBenchJSON
import PeerBenchPlugin

/// Builds the report's figures from the comparison document (medians, intervals,
/// verdicts) and the condensed run data (raw sample distributions, time series).
enum ReportFigures {
    static func all(data: ReportData, document: ComparisonDocument) -> [ReportFigure] {
        [
            verdicts(document),
            metricVsDistance(.throughputMbps, name: "throughput-vs-distance", title: "Throughput vs distance", data: data, document: document),
            rttCDF(data),
            metricVsDistance(.rttP50, name: "rtt-vs-distance", title: "RTT (median of p50) vs distance", data: data, document: document),
            metricVsDistance(.lossRatio, name: "loss-vs-distance", title: "Loss vs distance", data: data, document: document),
            metricVsDistance(.connectMs, name: "connect-time", title: "Connect time vs distance", data: data, document: document),
            metricVsDistance(
                .uwbAvailability, name: "uwb-availability", title: "UWB distance availability vs distance", data: data, document: document),
            metricVsDistance(.uwbErrorM, name: "uwb-error", title: "UWB distance error vs distance", data: data, document: document),
            bulkSeries(data),
        ] + workloadFigures(data: data, document: document)
    }

    /// The workload metrics (docs/WORKLOADS.md) against distance, one panel per place and
    /// workload; only those some cell has, so a run of uploads gains no empty sections.
    static func workloadFigures(data: ReportData, document: ComparisonDocument) -> [ReportFigure] {
        workloadFigureNames.map { metricVsDistance($0.metric, name: $0.name, title: $0.title, data: data, document: document) }
            .filter { $0.spec != nil }
    }

    /// The workload figures: their metric, file name and title.
    static let workloadFigureNames: [(metric: ComparisonMetric, name: String, title: String)] = [
        (.transactionP50, "request-response-vs-distance", "Request-response time (median of p50) vs distance"),
        (.frameDelayP99, "frame-delay-vs-distance", "Frame delay (median of p99) vs distance"),
        (.lateFrames, "late-frames-vs-distance", "Late frames vs distance"),
    ]

    static let verdictColours: [(ComparisonDocument.Verdict, String)] = [
        (.better, "#1a9850"), (.worse, "#d73027"), (.noDifference, "#a6a6a6"), (.insufficient, "#e6dfc8"),
    ]

    /// The place pick's first option: every place.
    static let allPlaces = "all places"

    /// Scenarios x transport pairs, one cell per pair coloured by a's verdict against b:
    /// one panel per place (rows) and distance (columns), payloads down each panel, so
    /// a study of 100+ scenarios (4 places x 3 distances x 9 payloads) stays a few
    /// hundred pixels tall; a second pick narrows it to one place.
    static func verdicts(_ doc: ComparisonDocument) -> ReportFigure {
        let name = "verdicts", title = "Verdict overview"
        let caption =
            "Each square is the verdict of the first transport against the second in one scenario, on the metric picked above (alpha \(doc.alpha)); "
            + "one row of panels per place, one column per distance, payloads down each panel. "
            + "A time difference that does not clear the measurement floor is no difference (reason below_floor)."
        var rows: [JSONValue] = []
        var metrics: [String] = [], places: [String] = [], distances: [String] = []
        for s in doc.scenarios {
            let scenario = ReportData.Scenario(environment: s.environment, distanceLabel: s.distanceLabel, payload: s.payload).title
            if !places.contains(s.environment) { places.append(s.environment) }
            let distance = s.distanceLabel == "max" ? "max" : s.distanceLabel + " m"
            if !distances.contains(distance) { distances.append(distance) }
            let payload = s.payload == "-" ? "no payload" : s.payload + " B"
            for p in s.pairs {
                if !metrics.contains(p.metric) { metrics.append(p.metric) }
                rows.append([
                    "scenario": .string(scenario), "environment": .string(s.environment), "distance": .string(distance),
                    "payload": .string(payload), "pair": .string("\(p.a) vs \(p.b)"), "metric": .string(p.metric),
                    "verdict": .string(p.verdict.rawValue), "p_adjusted": JSONValue(p.pAdjusted),
                    "cliffs_delta": JSONValue(p.cliffsDelta), "floor_ms": JSONValue(p.floorMs),
                    "reason": JSONValue(p.reason),
                ])
            }
        }
        guard !rows.isEmpty else {
            return ReportFigure(
                name: name, title: title, caption: caption,
                missing: "No scenario has two transports with a common metric: there is no pair to compare.")
        }
        let spec: JSONValue = [
            "$schema": ReportFigure.schema,
            "params": [
                ReportFigure.pick("metric", label: "metric", options: metrics),
                ReportFigure.pick("place", label: "place", options: [allPlaces] + places),
            ],
            "data": ["values": .array(rows)],
            "transform": [["filter": "datum.metric == metric"], ["filter": .string("place == '\(allPlaces)' || datum.environment == place")]],
            "facet": [
                // Explicit orders: a facet header sorts alphabetically without one.
                "row": [
                    "field": "environment", "type": "nominal", "sort": .array(places.map { .string($0) }), "title": nil,
                    "header": ["labelAngle": 0, "labelAlign": "left", "labelFontWeight": "bold"],
                ],
                "column": ["field": "distance", "type": "nominal", "sort": .array(distances.map { .string($0) }), "title": nil],
            ],
            "spacing": ["row": 8, "column": 6],
            "spec": [
                "width": ["step": 16], "height": ["step": 14],
                "mark": ["type": "rect", "stroke": "white"],
                "encoding": [
                    "x": ["field": "pair", "type": "nominal", "sort": nil, "title": nil, "axis": ["labelAngle": -40]],
                    "y": ["field": "payload", "type": "nominal", "sort": nil, "title": nil],
                    "color": [
                        "field": "verdict", "type": "nominal", "title": "verdict of a",
                        "scale": [
                            "domain": .array(verdictColours.map { .string($0.0.rawValue) }),
                            "range": .array(verdictColours.map { .string($0.1) }),
                        ],
                    ],
                    "tooltip": [
                        ["field": "scenario"], ["field": "pair"], ["field": "verdict"],
                        ["field": "p_adjusted", "format": ".3g"], ["field": "cliffs_delta", "format": ".2f"],
                        ["field": "floor_ms", "format": ".3g"], ["field": "reason"],
                    ],
                ],
            ],
            "resolve": ["scale": ["y": "independent"]],
        ]
        return ReportFigure(name: name, title: title, caption: caption, spec: spec)
    }

    /// One panel per environment, one line per transport: the median over usable
    /// repetitions, with the 95 % interval of the median as a band where there is one.
    static func metricVsDistance(
        _ metric: ComparisonMetric, name: String, title: String, data: ReportData,
        document: ComparisonDocument
    ) -> ReportFigure {
        let caption =
            "Median \(metric.title) over the usable repetitions of each cell, one panel per environment; the band is the 95 % confidence interval of the median where the repetitions allow one."
        var rows: [JSONValue] = []
        var payloads: [String] = []
        for s in document.scenarios {
            let key = ReportData.Scenario(environment: s.environment, distanceLabel: s.distanceLabel, payload: s.payload)
            guard let si = data.scenarioIndex[key], let metres = data.distanceMeters[si] else { continue }
            for t in s.transports {
                guard let m = t.metrics[metric.rawValue], let median = m.median else { continue }
                if !payloads.contains(s.payload) { payloads.append(s.payload) }
                rows.append([
                    "environment": .string(s.environment), "distance_m": .number(metres),
                    "distance_label": .string(s.distanceLabel), "payload": .string(s.payload),
                    "transport": .string(t.label), "n": JSONValue(m.n), "median": .number(median),
                    "ci_low": JSONValue(m.ciLow), "ci_high": JSONValue(m.ciHigh),
                ])
            }
        }
        guard !rows.isEmpty else {
            return ReportFigure(
                name: name, title: title, caption: caption,
                missing: "No usable cell has \(metric.title) (metric \(metric.rawValue)).")
        }
        let colour: JSONValue = ["field": "transport", "type": "nominal", "title": "transport"]
        let x: JSONValue = ["field": "distance_m", "type": "quantitative", "title": "distance (m)"]
        let band: JSONValue = [
            "transform": [["filter": "isValid(datum.ci_low) && isValid(datum.ci_high)"]],
            "mark": ["type": "area", "opacity": 0.2],
            "encoding": [
                "x": x, "y": ["field": "ci_low", "type": "quantitative", "title": .string(metric.title)],
                "y2": ["field": "ci_high"], "color": colour,
            ],
        ]
        // Without any interval the band layer would be empty, which Vega reports as an infinite extent.
        let hasIntervals = rows.contains { $0["ci_low"]?.isNull == false && $0["ci_high"]?.isNull == false }
        let layer: JSONValue = [
            "width": 240, "height": 180,
            "layer": .array(
                (hasIntervals ? [band] : []) + [
                    [
                        "mark": ["type": "line", "point": true],
                        "encoding": [
                            "x": x, "y": ["field": "median", "type": "quantitative", "title": .string(metric.title)],
                            "color": colour,
                            "tooltip": [
                                ["field": "transport"], ["field": "distance_label", "title": "distance"],
                                ["field": "payload"], ["field": "n"], ["field": "median", "format": ".4g"],
                                ["field": "ci_low", "format": ".4g"], ["field": "ci_high", "format": ".4g"],
                            ],
                        ],
                    ]
                ]),
        ]
        var spec = JSONObject()
        spec["$schema"] = ReportFigure.schema
        spec["data"] = ["values": .array(rows)]
        // A payload pick only where there is a choice (uwb cells have none).
        if payloads.count > 1 {
            spec["params"] = [ReportFigure.pick("payload", label: "payload (count x bytes)", options: payloads)]
            spec["transform"] = [["filter": "datum.payload == payload"]]
        }
        spec["facet"] = ["field": "environment", "type": "nominal", "title": nil]
        spec["columns"] = 2
        spec["spec"] = layer
        // Each environment reaches its own maximum distance; a shared y keeps panels comparable.
        spec["resolve"] = ["scale": ["x": "independent"]]
        return ReportFigure(name: name, title: title, caption: caption, spec: .object(spec))
    }

    /// The distribution of every RTT probe (before the bulk phase) of the usable cells
    /// of one scenario, per transport, from samples.jsonl.
    static func rttCDF(_ data: ReportData) -> ReportFigure {
        let name = "rtt-cdf", title = "RTT distribution per scenario"
        let caption =
            "Cumulative distribution of every RTT probe of the usable cells of the scenario picked above (all repetitions pooled), from samples.jsonl; quantiles within 1 %."
        var rows: [JSONValue] = []
        var scenarios: [String] = []
        for (key, h) in data.rtt.sorted(by: { ($0.key.scenario, $0.key.transport) < ($1.key.scenario, $1.key.transport) }) {
            let scenario = data.scenarios[key.scenario].title
            if !scenarios.contains(scenario) { scenarios.append(scenario) }
            for point in h.cdf() {
                rows.append([
                    "scenario": .string(scenario), "transport": .string(data.transports[key.transport]),
                    "rtt_ms": .number(point.ms), "p": .number(point.p),
                ])
            }
        }
        guard !rows.isEmpty else {
            return ReportFigure(name: name, title: title, caption: caption, missing: missingSamples(data, what: "RTT probe times"))
        }
        let spec: JSONValue = [
            "$schema": ReportFigure.schema,
            "params": [ReportFigure.pick("scenario", label: "scenario", options: scenarios)],
            "data": ["values": .array(rows)],
            "transform": [["filter": "datum.scenario == scenario"]],
            "width": 520, "height": 260,
            "mark": ["type": "line", "interpolate": "step-after"],
            "encoding": [
                "x": ["field": "rtt_ms", "type": "quantitative", "title": "RTT (ms)", "scale": ["type": "log"]],
                "y": ["field": "p", "type": "quantitative", "title": "fraction of probes ≤ x"],
                "color": ["field": "transport", "type": "nominal"],
                "tooltip": [["field": "transport"], ["field": "rtt_ms", "format": ".3f"], ["field": "p", "format": ".2f"]],
            ],
        ]
        return ReportFigure(name: name, title: title, caption: caption, spec: spec)
    }

    /// The receiver's throughput per 100 ms of one cell's bulk phase, from samples.jsonl.
    static func bulkSeries(_ data: ReportData) -> ReportFigure {
        let name = "bulk-series", title = "Throughput over time of one cell"
        var caption =
            "Receiver-side throughput per interval of the bulk phase of the cell picked above, from the first bulk byte (samples.jsonl bulk_series)."
        if data.seriesNotKept > 0 {
            caption += " The list holds the first \(ReportData.maxSeries) cells; \(data.seriesNotKept) more are in samples.jsonl."
        }
        guard !data.series.isEmpty else {
            return ReportFigure(name: name, title: title, caption: caption, missing: missingSamples(data, what: "bulk time series"))
        }
        var rows: [JSONValue] = []
        for s in data.series {
            for (i, mbps) in s.mbps.enumerated() {
                rows.append(["cell": .string(s.label), "t_s": .number(Double(i) * s.intervalSeconds), "mbps": .number(mbps)])
            }
        }
        let spec: JSONValue = [
            "$schema": ReportFigure.schema,
            "params": [ReportFigure.pick("cell", label: "cell", options: data.series.map(\.label))],
            "data": ["values": .array(rows)],
            "transform": [["filter": "datum.cell == cell"]],
            "width": 520, "height": 220,
            "mark": ["type": "line", "interpolate": "step-after"],
            "encoding": [
                "x": ["field": "t_s", "type": "quantitative", "title": "time since the first bulk byte (s)"],
                "y": ["field": "mbps", "type": "quantitative", "title": "throughput (Mbit/s)"],
                "tooltip": [["field": "t_s", "format": ".1f"], ["field": "mbps", "format": ".2f"]],
            ],
        ]
        return ReportFigure(name: name, title: title, caption: caption, spec: spec)
    }

    static func missingSamples(_ data: ReportData, what: String) -> String {
        let without = data.runs.filter { $0.samplesJoined == nil }.map(\.directory)
        if without.count == data.runs.count {
            return "No samples.jsonl in \(without.joined(separator: ", ")): these runs kept no raw samples, so there are no \(what) to draw."
        }
        return "samples.jsonl has no \(what) for any usable cell"
            + (without.isEmpty ? "." : " (and \(without.joined(separator: ", ")) has no samples.jsonl).")
    }
}
