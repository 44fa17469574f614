import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import Testing

@testable import PeerBenchAnalysis

/// A complete record as `peerbench run` writes it, with just the figures a test sets.
func comparedRecord(
    _ label: String, rep: Int, mbps: Double?, p50: Double = 1, run: String = "r1", env: String = "forest",
    status: String = "ok", mode: String = "none", schema: String = "peerbench.record/1",
    uwb: (availability: Double, errorP95: Double)? = nil
) -> JSONValue {
    var extra = JSONObject()
    if let uwb { extra["uwb"] = ["distance_availability": .number(uwb.availability), "distance_error_m": ["p95": .number(uwb.errorP95)]] }
    return [
        "schema": .string(schema), "run_id": .string(run), "cell_id": .string("\(label)-\(env)"), "repetition": JSONValue(rep), "seed": 1,
        "transport": ["plugin": .string(uwb == nil ? "tcp" : "uwb"), "label": .string(label), "options": [:]],
        "environment": .string(env), "distance_m": 10, "distance_label": "10", "payload": uwb == nil ? ["count": 100, "size": 128] : nil,
        "link": [
            "mode": .string(mode), "delay_ms": nil, "jitter_ms": nil, "loss_percent": nil, "rate_mbps": nil, "mtu": nil,
            "rssi_dbm": nil, "snr_db": nil, "mcs": nil, "phy_rate_mbps": nil, "packets_up": nil, "packets_down": nil,
            "bytes_up": nil, "bytes_down": nil, "drops_up": nil, "drops_down": nil,
        ],
        "status": .string(status), "error": nil, "started_at": "2026-11-23T01:58:55.525Z", "connect_ms": 0.5,
        "bulk_seconds": 0.1, "total_seconds": 0.5, "throughput_mbps": JSONValue(mbps),
        "rtt_ms": [
            "count": 20, "min": .number(p50), "mean": .number(p50), "p50": .number(p50), "p90": .number(p50),
            "p99": .number(p50 * 2), "max": .number(p50 * 2), "stddev": 0,
        ],
        "jitter_ms": ["ipdv_mean": 0.1, "rfc3550": nil],
        "delivery": [
            "sent_messages": 100, "received_messages": 100, "sent_bytes": 12800, "received_bytes": 12800,
            "loss_ratio": 0, "reordered": 0, "duplicated": 0,
        ],
        "extra": .object(extra),
    ]
}

/// The typed records of `comparedRecord` lines.
func typed(_ records: [JSONValue]) throws -> [Record] { try records.map { try Record(json: $0) } }

@Suite struct ComparatorTests {
    func pair(_ doc: ComparisonDocument, _ metric: String) -> ComparisonDocument.Pair? {
        doc.scenarios.first?.pairs.first { $0.metric == metric }
    }

    @Test func fiveSeparatedRepetitionsGiveAVerdictInTheMetricsDirection() throws {
        // tcp 100..104 Mbit/s with RTT 3 ms; udp 200..204 with RTT 1 ms: completely separated.
        let records =
            (1...5).map { comparedRecord("tcp", rep: $0, mbps: 99 + Double($0), p50: 3 + Double($0) / 100) }
            + (1...5).map { comparedRecord("udp", rep: $0, mbps: 199 + Double($0), p50: 1 + Double($0) / 100) }
        let doc = try ComparisonDocument(records: typed(records))
        let tp = try #require(pair(doc, "throughput_mbps"))
        #expect(tp.a == "tcp" && tp.b == "udp")
        #expect(tp.verdict == .worse, "tcp has lower throughput")
        #expect(abs(tp.pValue! - 2.0 / 252) < 1e-12, "exact two-sided p for 5 vs 5 fully separated")
        #expect(tp.pAdjusted == tp.pValue, "one pair: Holm changes nothing")
        #expect(tp.cliffsDelta == -1)
        #expect(tp.shift == -100)
        let rtt = try #require(pair(doc, "rtt_p50_ms"))
        #expect(rtt.verdict == .worse, "higher RTT is worse")
        #expect(pair(doc, "loss_ratio")?.verdict == .noDifference, "all zero")
        let tcp = try #require(doc.scenarios[0].transports.first { $0.label == "tcp" })
        #expect(tcp.metrics["throughput_mbps"] == .init(n: 5, median: 102, ciLow: nil, ciHigh: nil), "no interval below 6 values")
        #expect(doc.warnings.isEmpty)
    }

    @Test func threeRepetitionsAreInsufficientWithAWarningSayingHowManyAreNeeded() throws {
        let records =
            (1...3).map { comparedRecord("tcp", rep: $0, mbps: Double($0)) } + (1...3).map { comparedRecord("udp", rep: $0, mbps: 100 + Double($0)) }
        let doc = try ComparisonDocument(records: typed(records))
        let tp = try #require(pair(doc, "throughput_mbps"))
        #expect(tp.verdict == .insufficient)
        #expect(tp.pValue == 0.1, "still reported: the smallest p 3 vs 3 can give")
        #expect(tp.pAdjusted == nil, "outside the Holm family")
        #expect(doc.warnings.contains { $0.contains("at least 4") })
    }

    @Test func overlappingSamplesAreNoDifference() throws {
        let a: [Double] = [10, 12, 11, 13, 9, 12], b: [Double] = [11, 10, 12, 13, 12, 10]
        let records =
            a.enumerated().map { comparedRecord("tcp", rep: $0.offset + 1, mbps: $0.element) }
            + b.enumerated().map { comparedRecord("quic", rep: $0.offset + 1, mbps: $0.element) }
        let doc = try ComparisonDocument(records: typed(records))
        #expect(pair(doc, "throughput_mbps")?.verdict == .noDifference)
        let tcp = try #require(doc.scenarios[0].transports.first)
        #expect(tcp.metrics["throughput_mbps"]?.ciLow == 9 && tcp.metrics["throughput_mbps"]?.ciHigh == 13, "n = 6: [min, max]")
    }

    @Test func holmAdjustsWithinTheScenarioAndMetric() throws {
        // Three transports, all separated: three pairs, each p = 2/252; Holm multiplies by 3, 2, 1 and keeps order.
        let records = ["a", "b", "c"].enumerated().flatMap { i, l in (1...5).map { comparedRecord(l, rep: $0, mbps: Double(i * 100 + $0)) } }
        let doc = try ComparisonDocument(records: typed(records))
        let tps = doc.scenarios[0].pairs.filter { $0.metric == "throughput_mbps" }
        #expect(tps.count == 3)
        #expect(tps.allSatisfy { abs($0.pAdjusted! - 3 * 2.0 / 252) < 1e-12 }, "equal p: all get the largest multiplier's running max")
        #expect(tps.allSatisfy { $0.verdict == .worse })
    }

    @Test func theLastRecordOfARetriedCellCounts() throws {
        let retried = [comparedRecord("tcp", rep: 1, mbps: nil, status: "failed"), comparedRecord("tcp", rep: 1, mbps: 50)]
        let doc = try ComparisonDocument(records: typed(retried))
        #expect(doc.scenarios[0].transports[0].metrics["throughput_mbps"] == .init(n: 1, median: 50, ciLow: nil, ciHigh: nil))
        // The other order: the failed retry is the outcome, so no ok value is left.
        let failedLast = try ComparisonDocument(records: typed(retried.reversed()))
        #expect(failedLast.scenarios[0].transports[0].metrics["throughput_mbps"]?.n == 0)
    }

    @Test func uwbMetricsComeFromExtraAndOnlyApplyToUWB() throws {
        let records =
            (1...4).map { comparedRecord("uwb", rep: $0, mbps: nil, uwb: (0.9 + Double($0) / 100, 0.1)) }
            + (1...4).map { comparedRecord("uwb2", rep: $0, mbps: nil, uwb: (0.5 + Double($0) / 100, 0.3)) }
        let doc = try ComparisonDocument(records: typed(records))
        let s = try #require(doc.scenarios.first)
        #expect(s.payload == "-")
        #expect(s.transports[0].metrics["throughput_mbps"] == nil, "no bulk phase: the metric does not apply")
        #expect(s.transports[0].metrics["uwb_availability"]?.median == 0.925)
        #expect(s.pairs.first { $0.metric == "uwb_availability" }?.verdict == .better, "higher availability is better")
        #expect(
            s.pairs.first { $0.metric == "uwb_error_m" }?.verdict == .better, "lower error is better (ties within each side: normal approximation)")
    }

    @Test func differentLinkModesAreRefusedNamingTheRecord() {
        let records = [
            comparedRecord("tcp", rep: 1, mbps: 30, run: "a", mode: "emulated"), comparedRecord("tcp", rep: 1, mbps: 1200, run: "b", mode: "none"),
        ]
        #expect {
            try ComparisonDocument(records: typed(records))
        } throws: { error in
            let text = "\(error)"
            return text.contains("record 2") && text.contains("link mode \"none\"") && text.contains("emulated")
        }
    }

    @Test func jsonContractKeysAndTypes() throws {
        let records =
            (1...6).map { comparedRecord("tcp", rep: $0, mbps: Double($0)) } + (1...6).map { comparedRecord("udp", rep: $0, mbps: 10 + Double($0)) }
        let data = Data(try ComparisonDocument(records: typed(records)).jsonText().utf8)
        let top = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(top.keys) == ["schema", "alpha", "warnings", "scenarios", "measurement_floor", "notes"])
        #expect(top["measurement_floor"] is NSNull, "records in memory, no manifest: no floor")
        #expect(top["notes"] is NSNull, "records in memory, no manifest: no notes")
        #expect(top["schema"] as? String == "peerbench.compare/1")
        let s = try #require((top["scenarios"] as? [[String: Any]])?.first)
        #expect(Set(s.keys) == ["environment", "distance_label", "payload", "transports", "pairs", "within_run"])
        #expect(s["within_run"] is NSNull, "six repetitions each: no within-run evidence")
        #expect(s["payload"] as? String == "100x128")
        let t = try #require((s["transports"] as? [[String: Any]])?.first)
        #expect(Set(t.keys) == ["label", "metrics"])
        let m = try #require((t["metrics"] as? [String: Any])?["throughput_mbps"] as? [String: Any])
        #expect(Set(m.keys) == ["n", "median", "ci_low", "ci_high"])
        #expect(m["n"] as? Int == 6 && m["median"] as? Double == 3.5 && m["ci_low"] as? Double == 1 && m["ci_high"] as? Double == 6)
        let p = try #require((s["pairs"] as? [[String: Any]])?.first { $0["metric"] as? String == "throughput_mbps" })
        #expect(
            Set(p.keys) == [
                "a", "b", "metric", "p_value", "p_adjusted", "cliffs_delta", "shift", "shift_ci_low", "shift_ci_high", "verdict",
                "floor_ms", "reason",
            ])
        #expect(p["floor_ms"] is NSNull && p["reason"] is NSNull)
        #expect(p["verdict"] as? String == "worse")
        #expect(p["shift"] as? Double == -10)
        for key in ["p_value", "p_adjusted", "cliffs_delta", "shift_ci_low", "shift_ci_high"] { #expect(p[key] is Double, "\(key)") }
        // Round trip: report decodes what compare writes.
        #expect(try JSONDecoder().decode(ComparisonDocument.self, from: data) == ComparisonDocument(records: typed(records)))
    }
}

/// The matrix loader checks `"repetitionMetrics"` against its own list of compare's
/// metric names (PeerBenchCore cannot see `ComparisonMetric`): the two must agree.
@Suite struct AutoRepetitionMetricNamesTests {
    @Test func theLoadersListIsComparesMetrics() {
        #expect(AutoRepetitions.metricNames == ComparisonMetric.allCases.map(\.rawValue))
    }
}

/// A metric's `index` is its place in `allCases` (a switch kept in step by hand).
@Suite struct ComparisonMetricIndexTests {
    @Test func indexIsThePlaceInAllCases() {
        #expect(ComparisonMetric.allCases.map(\.index) == Array(ComparisonMetric.allCases.indices))
    }
}
