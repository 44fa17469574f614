import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// Builds the head-to-head `ComparisonDocument` (docs/COMPARE.md): per scenario and
/// transport the median with its interval, per pair and metric the Mann-Whitney test,
/// Holm-adjusted within the scenario x metric, Cliff's delta, the Hodges-Lehmann shift
/// and a verdict.
extension ComparisonDocument {
    /// The comparison of records already in memory (tests, `report`). Throws for records
    /// that must not be pooled (different link modes).
    /// `floor`: the measurement floor to apply (from run folders it comes from their manifests).
    public init(records: [Record], alpha: Double = 0.05, floor: ComparisonFloor? = nil) throws(InputError) {
        var data = ComparisonData()
        for (i, r) in records.enumerated() { try data.add(ComparedRecord(r), source: "record \(i + 1)") }
        data.floor = floor
        self = ComparisonDocument.build(data, alpha: alpha)
    }

    /// The comparison of one or more run folders, their journals streamed (bounded
    /// memory). Throws for unreadable folders and for runs that must not be pooled
    /// (different link modes or record schemas).
    public static func load(runDirectories: [String], alpha: Double = 0.05) throws(InputError) -> ComparisonDocument {
        build(try ComparisonData.load(runDirectories: runDirectories), alpha: alpha)
    }

    /// The fewest ok repetitions per transport for which a verdict is possible at `alpha`.
    public static func repetitionsNeeded(alpha: Double) -> Int { PairTest.repetitionsNeeded(alpha: alpha) }

    /// Pairs of labels with one ok repetition each, in the same run, both with RTT probes:
    /// the probes compared as samples (`rtt_probe_ms`). Evidence about these two cells of
    /// this run only, never a verdict across runs.
    static func withinRun(_ data: ComparisonData, labels: [Int], byLabel: [Int: [Int]], alpha: Double) -> [Pair]? {
        var single: [(label: Int, point: Int, probes: [Double])] = []
        for l in labels {
            let ok = byLabel[l]!.filter { data.points[$0].ok }
            if ok.count == 1, let p = data.probes[ok[0]] { single.append((l, ok[0], p)) }
        }
        guard single.count >= 2 else { return nil }
        var tests: [(a: Int, b: Int, test: PairTest)] = []
        for (i, a) in single.enumerated() {
            for b in single[(i + 1)...] where data.pointRun[a.point] == data.pointRun[b.point] {
                tests.append((a.label, b.label, PairTest(a.probes, b.probes, alpha: alpha)))
            }
        }
        guard !tests.isEmpty else { return nil }
        let family = tests.indices.filter { !tests[$0].test.insufficient && tests[$0].test.pValue != nil }
        let adjusted = Holm.adjust(family.map { tests[$0].test.pValue! })
        var pAdjusted = [Int: Double]()
        for (k, i) in family.enumerated() { pAdjusted[i] = adjusted[k] }
        return tests.enumerated().map { i, t in
            let a = data.labels[t.a], b = data.labels[t.b]
            let floor = data.floor?.floorMs(metric: withinRunMetric, a: a, b: b)
            let (direction, reason) = t.test.direction(pAdjusted: pAdjusted[i], alpha: alpha, higherIsBetter: false, floor: floor)
            return Pair(
                a: a, b: b, metric: withinRunMetric, pValue: t.test.pValue, pAdjusted: pAdjusted[i],
                cliffsDelta: t.test.cliffsDelta, shift: t.test.shift, shiftCILow: t.test.shiftLow, shiftCIHigh: t.test.shiftHigh,
                verdict: Verdict(direction), floorMs: floor, reason: reason)
        }
    }

    /// The metric name of within-run pairs: every RTT probe of one cell, milliseconds.
    static let withinRunMetric = "rtt_probe_ms"

    static func build(_ data: ComparisonData, alpha: Double) -> ComparisonDocument {
        var scenarios: [Scenario] = []
        let warnings = stream(data, alpha: alpha) { scenarios.append($0) }
        return ComparisonDocument(alpha: alpha, warnings: warnings, scenarios: scenarios, measurementFloor: data.floor)
    }

    /// The comparison of run folders one scenario at a time: `each` gets every scenario as
    /// soon as it is built, so a writer need never hold the whole document (200 000
    /// records make ~100 MB of JSON). Returns the document's warnings, known only at the end.
    /// `floor` gets the runs' measurement floor (nil: none) before the first scenario.
    public static func stream(
        runDirectories: [String], alpha: Double = 0.05, floor: (ComparisonFloor?) throws -> Void = { _ in },
        each: (Scenario) throws -> Void
    ) throws -> [String] {
        try stream(runDirectories: runDirectories, alpha: alpha, floor: floor, render: { $0 }, each: each)
    }

    /// As above, with `render` applied to each scenario on every core (its text for
    /// output, say) before `each` gets the results, in scenario order.
    public static func stream<R: Sendable>(
        runDirectories: [String], alpha: Double = 0.05, floor: (ComparisonFloor?) throws -> Void = { _ in },
        render: @escaping @Sendable (Scenario) -> R, each: (R) throws -> Void
    ) throws -> [String] {
        let data = try ComparisonData.load(runDirectories: runDirectories)
        try floor(data.floor)
        return try stream(data, alpha: alpha, render: render, each)
    }

    /// How the warning about runs with too few repetitions for a verdict begins.
    public static let tooFewRepetitionsWarning = "too few repetitions"

    /// Scenarios built per batch on every core: enough to share out, few enough that
    /// memory holds a batch's rendered text only.
    static let scenarioBatch = 256

    static func stream<R: Sendable, Failure: Error>(
        _ data: ComparisonData, alpha: Double, render: @escaping @Sendable (Scenario) -> R,
        _ each: (R) throws(Failure) -> Void
    ) throws(Failure) -> [String] {
        var fewest = Int.max
        let groups = data.pointsByScenario()
        // The next batch is built while `each` writes this one.
        try BatchPipeline.run(produce: { k -> [(R, Int)]? in
            let start = k * scenarioBatch
            guard start < groups.count else { return nil }
            return OrderedParallelMap.map(Array(start..<min(start + scenarioBatch, groups.count))) { s in
                let (scenario, least) = Self.scenario(s, points: groups[s], data: data, alpha: alpha)
                return (render(scenario), least)
            }
        }) { (built: [(R, Int)]) throws(Failure) in
            for (rendered, least) in built {
                fewest = min(fewest, least)
                try each(rendered)
            }
        }
        var warnings = data.warnings
        let needed = PairTest.repetitionsNeeded(alpha: alpha)
        if fewest < needed {
            warnings.append(
                tooFewRepetitionsWarning + ": some transports have only \(fewest) ok repetition\(fewest == 1 ? "" : "s") in a scenario; "
                    + "a verdict needs at least \(needed) on each side at alpha \(alpha) (pairs below that are \"insufficient\"); run with --repetitions \(needed) or more"
            )
        }
        return warnings
    }

    static func stream<Failure: Error>(_ data: ComparisonData, alpha: Double, _ each: (Scenario) throws(Failure) -> Void) throws(Failure) -> [String]
    {
        try stream(data, alpha: alpha, render: { $0 }, each)
    }

    /// Scenario `s` (its points `points`) with its medians, tests and verdicts, and the
    /// fewest ok values of a metric of a label there when more than one label competes
    /// (`Int.max` otherwise), for the too-few-repetitions warning.
    static func scenario(_ s: Int, points: [Int], data: ComparisonData, alpha: Double) -> (Scenario, Int) {
        var fewest = Int.max
        var labels: [Int] = []
        var byLabel: [Int: [Int]] = [:]
        for i in points {
            let l = data.points[i].label
            if byLabel[l] == nil { labels.append(l) }
            byLabel[l, default: []].append(i)
        }
        // By metric index: label -> ok values in ascending order, for the metrics that
        // apply to the label. Sorted once here for the median, its interval and every pair.
        var samples = [[Int: [Double]]?](repeating: nil, count: ComparisonData.metricCount)
        var transports: [Transport] = []
        for l in labels {
            var metrics: [String: MetricSummary] = [:]
            let ok = byLabel[l]!.filter { data.points[$0].ok }
            for metric in ComparisonMetric.allCases where data.applies[l][metric.index] {
                let xs = ok.compactMap { data.value(point: $0, metric: metric) }.sorted()
                if samples[metric.index] == nil { samples[metric.index] = [l: xs] } else { samples[metric.index]![l] = xs }
                let ci = OrderStatistics.medianInterval(sorted: xs)
                metrics[metric.rawValue] = MetricSummary(n: xs.count, median: OrderStatistics.medianOfSorted(xs), ciLow: ci?.low, ciHigh: ci?.high)
                if labels.count > 1 { fewest = min(fewest, xs.count) }
            }
            transports.append(Transport(label: data.labels[l], metrics: metrics))
        }
        var pairs: [Pair] = []
        for metric in ComparisonMetric.allCases {
            guard let byMetric = samples[metric.index] else { continue }
            pairs += Self.pairs(metric, labels: labels.filter { byMetric[$0] != nil }, samples: byMetric, data: data, alpha: alpha)
        }
        let sc = data.scenarios[s]
        var scenario = Scenario(
            environment: sc.environment, distanceLabel: sc.distanceLabel, payload: sc.payload,
            transports: transports, pairs: pairs)
        scenario.withinRun = withinRun(data, labels: labels, byLabel: byLabel, alpha: alpha)
        return (scenario, fewest)
    }

    /// Every pair of `labels` on `metric` (samples in ascending order): the test,
    /// Holm-adjusted over the pairs, and the verdict.
    static func pairs(
        _ metric: ComparisonMetric, labels present: [Int], samples byMetric: [Int: [Double]], data: ComparisonData,
        alpha: Double
    ) -> [Pair] {
        var tests: [(a: Int, b: Int, test: PairTest)] = []
        for (i, a) in present.enumerated() {
            for b in present[(i + 1)...] { tests.append((a, b, PairTest(sorted: byMetric[a]!, byMetric[b]!, alpha: alpha))) }
        }
        let pAdjusted = PairTest.holmAdjusted(tests.map(\.test))
        return tests.enumerated().map { i, t in
            let a = data.labels[t.a], b = data.labels[t.b]
            let floor = data.floor?.floorMs(metric: metric.rawValue, a: a, b: b)
            let (direction, reason) = t.test.direction(pAdjusted: pAdjusted[i], alpha: alpha, higherIsBetter: metric.higherIsBetter, floor: floor)
            return Pair(
                a: a, b: b, metric: metric.rawValue, pValue: t.test.pValue,
                pAdjusted: pAdjusted[i], cliffsDelta: t.test.cliffsDelta, shift: t.test.shift,
                shiftCILow: t.test.shiftLow, shiftCIHigh: t.test.shiftHigh, verdict: Verdict(direction),
                floorMs: floor, reason: reason)
        }
    }
}

extension ComparisonDocument.Verdict {
    /// From `PairTest.direction`: +1 better, -1 worse, 0 no difference, nil insufficient.
    init(_ direction: Int?) {
        self =
            switch direction {
            case nil: .insufficient
            case 1: .better
            case -1: .worse
            default: .noDifference
            }
    }
}
