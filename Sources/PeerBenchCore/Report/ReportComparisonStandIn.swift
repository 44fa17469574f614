/// STAND-IN, to be replaced at merge: the `stats` engineer is writing the real builder
/// of `ComparisonDocument` (confidence intervals, Mann-Whitney, Holm, Cliff's delta,
/// verdicts). Until it lands this fills the same document with what needs no
/// statistics: per scenario x transport `n` and the median of each metric over the
/// usable cells, nil intervals, and every pair `insufficient`. The report draws only
/// the document, so swapping this one function for the real builder is the whole merge
/// (on the stats branch: `Comparator.load(runDirectories:alpha:)`, its InputError
/// mapped to a ReportError; metric names already match its ComparisonMetric).
enum ReportComparisonStandIn {
    static func document(from data: ReportData, alpha: Double) -> ComparisonDocument {
        let values = data.usableValues()
        let counts = data.cellCounts()
        var scenarios: [ComparisonDocument.Scenario] = []
        for (si, s) in data.scenarios.enumerated() {
            let present = data.transports.indices.filter { counts[.init(scenario: si, transport: $0)] != nil }
            var transports: [ComparisonDocument.Transport] = []
            for t in present {
                let cells = values[.init(scenario: si, transport: t)] ?? []
                var metrics: [String: ComparisonDocument.MetricSummary] = [:]
                for m in ReportMetric.allCases {
                    let xs = cells.compactMap { $0[m] }
                    // A metric no cell of this transport has (uwb has no throughput) is left out, not n = 0.
                    if xs.isEmpty, !cells.isEmpty { continue }
                    metrics[m.rawValue] = .init(n: xs.count, median: median(xs), ciLow: nil, ciHigh: nil)
                }
                transports.append(.init(label: data.transports[t], metrics: metrics))
            }
            var pairs: [ComparisonDocument.Pair] = []
            for (i, a) in transports.enumerated() {
                for b in transports[(i + 1)...] {
                    for m in ReportMetric.allCases where a.metrics[m.rawValue] != nil && b.metrics[m.rawValue] != nil {
                        pairs.append(.init(a: a.label, b: b.label, metric: m.rawValue, pValue: nil, pAdjusted: nil,
                                           cliffsDelta: nil, shift: nil, shiftCILow: nil, shiftCIHigh: nil, verdict: .insufficient))
                    }
                }
            }
            scenarios.append(.init(environment: s.environment, distanceLabel: s.distanceLabel, payload: s.payload,
                                   transports: transports, pairs: pairs))
        }
        return ComparisonDocument(alpha: alpha, warnings: ["statistics stand-in: no tests were run, every verdict is insufficient"],
                                  scenarios: scenarios)
    }

    static func median(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
