import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// Builds a `BaselineDocument` from two run folders of the same matrix (docs/COMPARE.md).
extension BaselineDocument {
    /// Refuses runs of different matrices (naming what differs) or link modes.
    public static func load(old: String, new: String, alpha: Double = 0.05) throws(InputError) -> BaselineDocument {
        func manifest(_ dir: String) throws(InputError) -> Manifest {
            let m: Manifest?
            do { m = try RunDirectory(path: dir).readManifest() } catch {
                throw InputError(source: dir + "/manifest.json", "\(error)")
            }
            guard let m else {
                throw InputError(source: dir, "no manifest.json here: a baseline needs both runs' manifests to check they ran the same matrix")
            }
            return m
        }
        let om = try manifest(old), nm = try manifest(new)
        if om.matrixHash != nm.matrixHash {
            let diff = MatrixDiff.describe(old: om.matrix, new: nm.matrix)
            throw InputError(
                source: new,
                "ran a different matrix than \(old) (matrix_hash \(om.matrixHash) vs \(nm.matrixHash)): "
                    + diff.joined(separator: "; ") + "; a baseline compares two runs of the same matrix")
        }
        if om.linkMode != nm.linkMode {
            throw InputError(
                source: new,
                "ran with --link \(nm.linkMode.rawValue), \(old) with --link \(om.linkMode.rawValue): figures over unlike links are not compared")
        }
        let oldData = try ComparisonData.load(runDirectories: [old])
        let newData = try ComparisonData.load(runDirectories: [new])
        if let a = oldData.linkMode, let b = newData.linkMode, a != b {
            throw InputError(source: new, "records over link mode \(b), \(old)'s over \(a): figures over unlike links are not compared")
        }
        var doc = build(old: (old, oldData), new: (new, newData), alpha: alpha)
        doc.oldNote = om.note
        doc.newNote = nm.note
        return doc
    }

    static func build(old: (name: String, data: ComparisonData), new: (name: String, data: ComparisonData), alpha: Double) -> BaselineDocument {
        let oldGroups = Groups(old.data), newGroups = Groups(new.data)
        var warnings = old.data.warnings + new.data.warnings
        // The two runs' floors together: each figure the larger of the two.
        var floors = ComparisonFloor.merged(old.data.floor, new.data.floor)
        if let o = old.data.floor, let n = new.data.floor, o.figures != n.figures {
            floors?.notes.append("\(old.name) and \(new.name) measured different floors; the larger figure of each is used")
        }
        var scenarios: [Scenario] = []
        var paired = 0, disjoint = 0
        for (key, newLabels) in newGroups.ordered {
            guard let oldLabels = oldGroups.byScenario[key] else {
                warnings.append("\(key.environment) · \(key.distanceLabel) · \(key.payload): only in \(new.name)")
                continue
            }
            var changes: [Change] = []
            for metric in ComparisonMetric.allCases {
                var tests: [(label: String, test: PairTest, old: [Double], new: [Double])] = []
                for (label, newPoints) in newLabels {
                    guard let oldPoints = oldLabels.first(where: { $0.label == label })?.points else { continue }
                    if metric == ComparisonMetric.allCases[0] {
                        paired += 1
                        if old.data.cellIDs(of: oldPoints[0]).isDisjoint(with: new.data.cellIDs(of: newPoints[0])) { disjoint += 1 }
                    }
                    let applies = new.data.applies[new.data.labels.firstIndex(of: label)!][metric.index]
                    guard applies else { continue }
                    let a = newGroups.okValues(newPoints, metric), b = oldGroups.okValues(oldPoints, metric)
                    tests.append((label, PairTest(a, b, alpha: alpha), b, a))
                }
                let pAdjusted = PairTest.holmAdjusted(tests.map(\.test))
                for (i, t) in tests.enumerated() {
                    let floor = floors?.floorMs(metric: metric.rawValue, a: t.label, b: t.label)
                    let (direction, reason) = t.test.direction(
                        pAdjusted: pAdjusted[i], alpha: alpha, higherIsBetter: metric.higherIsBetter, floor: floor)
                    let verdict: Verdict =
                        switch direction {
                        case nil: .insufficient
                        case 1: .improved
                        case -1: .regressed
                        default: .unchanged
                        }
                    let base = OrderStatistics.median(t.old).map(abs)
                    func relative(_ v: Double?) -> Double? {
                        guard let v, let base, base > 0 else { return nil }
                        return v / base
                    }
                    changes.append(
                        Change(
                            label: t.label, metric: metric.rawValue, old: summary(t.old), new: summary(t.new),
                            relativeChange: relative(t.test.shift), relativeCILow: relative(t.test.shiftLow),
                            relativeCIHigh: relative(t.test.shiftHigh), shift: t.test.shift, pValue: t.test.pValue, pAdjusted: pAdjusted[i],
                            cliffsDelta: t.test.cliffsDelta, verdict: verdict, floorMs: floor, reason: reason, pastThreshold: nil))
                }
            }
            for (label, _) in newLabels where !oldLabels.contains(where: { $0.label == label }) {
                warnings.append("\(key.environment) · \(key.distanceLabel) · \(key.payload): \(label) only in \(new.name)")
            }
            scenarios.append(Scenario(environment: key.environment, distanceLabel: key.distanceLabel, payload: key.payload, changes: changes))
        }
        for (key, _) in oldGroups.ordered where newGroups.byScenario[key] == nil {
            warnings.append("\(key.environment) · \(key.distanceLabel) · \(key.payload): only in \(old.name)")
        }
        // Two runs of one matrix (their manifests agree) whose cells share no id: the ids
        // were made another way (docs/RECORDS.md, "Cell ids"). Said first, and plainly.
        if paired > 0, disjoint * 2 > paired {
            warnings.insert(
                "\(disjoint) of \(paired) transports (environment · distance · payload · label) have no cell id in common in \(old.name) and \(new.name): "
                    + "made by a version whose cell ids differ? (docs/RECORDS.md, \"Cell ids\"). They are paired by environment, distance, payload "
                    + "and label as usual; check that each label ran the same options in both runs", at: 0)
        } else if paired == 0 {
            warnings.insert(
                "nothing to compare: no environment · distance · payload · label of \(new.name) is in \(old.name)"
                    + (old.data.allCellIDs.isDisjoint(with: new.data.allCellIDs)
                        ? " and no cell id either: made by a version whose cell ids differ?" : ""),
                at: 0)
        }
        let needed = PairTest.repetitionsNeeded(alpha: alpha)
        if scenarios.contains(where: { $0.changes.contains { $0.verdict == .insufficient } }) {
            warnings.append(
                "too few repetitions for some changes (\"insufficient\"): a verdict needs at least \(needed) ok repetitions in each run at alpha \(alpha)"
            )
        }
        return BaselineDocument(alpha: alpha, old: old.name, new: new.name, warnings: warnings, scenarios: scenarios, measurementFloor: floors)
    }

    static func summary(_ xs: [Double]) -> ComparisonDocument.MetricSummary {
        let ci = OrderStatistics.medianInterval(xs)
        return .init(n: xs.count, median: OrderStatistics.median(xs), ciLow: ci?.low, ciHigh: ci?.high)
    }

    /// One run's points grouped by scenario and label, in order of appearance.
    struct Groups {
        let data: ComparisonData
        var ordered: [(ComparisonData.Scenario, [(label: String, points: [Int])])] = []
        var byScenario: [ComparisonData.Scenario: [(label: String, points: [Int])]] = [:]

        init(_ data: ComparisonData) {
            self.data = data
            for (s, points) in data.pointsByScenario().enumerated() {
                var labels: [(label: String, points: [Int])] = []
                for i in points {
                    let label = data.labels[data.points[i].label]
                    if let k = labels.firstIndex(where: { $0.label == label }) { labels[k].points.append(i) } else { labels.append((label, [i])) }
                }
                ordered.append((data.scenarios[s], labels))
                byScenario[data.scenarios[s]] = labels
            }
        }

        func okValues(_ points: [Int], _ metric: ComparisonMetric) -> [Double] {
            points.filter { data.points[$0].ok }.compactMap { data.value(point: $0, metric: metric) }
        }
    }
}
