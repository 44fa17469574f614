import PeerBenchCore
import PeerBenchPlugin
import Synchronization

/// The stopping rule of `"repetitions": "auto[:MAX]"` (docs/COMPARE.md, "Repetitions
/// until the answer is clear"). A scenario (what `compare` compares: environment x
/// distance x payload, with its link scenario and competing flow) is *settled* once,
/// after a whole round (every transport has as many records as the round's number),
/// every transport has at least `min` ok repetitions and, for every metric `compare`
/// tests that applies to it, the 95 % interval of the median is at most `precision` x
/// |median| wide (a median of 0 needs an interval of width 0), or, for a time metric,
/// no wider than the run's measurement floor for that transport and metric (what the
/// harness cannot resolve, as compare's verdicts apply it). Its later rounds are
/// skipped; a scenario that never settles runs to MAX. The metrics and intervals are
/// the ones `compare` prints, so a settled scenario is one whose table is that precise.
public final class AutoRepetitionJudge: RepetitionJudge {
    public let rule: AutoRepetitions

    struct Scenario {
        var name: String
        /// label -> repetition -> the metric values of its latest record (nil: not ok). A
        /// retried repetition replaces the earlier one, as in compare.
        var labels: [String: [Int: [Double?]?]] = [:]
        var settledAt: Int?

        /// Repetitions recorded per label.
        var rounds: [Int] { labels.values.map(\.count) }
    }

    struct State {
        var scenarios: [Scenario] = []
        var index: [String: Int] = [:]
        /// cell id -> scenario index.
        var scenarioOfCell: [String: Int] = [:]
        var floor: ComparisonFloor?
    }

    private let state: Mutex<State>

    /// `cells`: the plan's (MAX repetitions); `records`: what the run has recorded
    /// already (a resumed run), judged as if they had just been written.
    public init(rule: AutoRepetitions, cells: [Cell], records: [Record] = []) {
        self.rule = rule
        var s = State()
        for cell in cells {
            let name = cell.comparisonScenario
            let i =
                s.index[name]
                ?? {
                    s.scenarios.append(Scenario(name: name))
                    s.index[name] = s.scenarios.count - 1
                    return s.scenarios.count - 1
                }()
            s.scenarioOfCell[cell.id] = i
            if s.scenarios[i].labels[cell.transport.label] == nil { s.scenarios[i].labels[cell.transport.label] = [:] }
        }
        state = Mutex(s)
        // The last record of each cell and repetition counts, as in compare.
        for r in JournalIndex(records: records).last.map(\.record) { add(r) }
    }

    /// The run's measurement floor, once measured (before the first cell).
    public func measured(_ floor: MeasurementFloor?) {
        state.withLock { $0.floor = floor.flatMap { ComparisonFloor([("run", $0)]) } }
    }

    public func needs(_ cell: Cell) -> Bool {
        state.withLock { s in
            guard cell.repetition > rule.min, let i = s.scenarioOfCell[cell.id] else { return true }
            return s.scenarios[i].settledAt == nil
        }
    }

    public func add(_ record: Record) {
        state.withLock { s in
            guard let i = s.scenarioOfCell[record.cellID], s.scenarios[i].labels[record.transport.label] != nil else { return }
            let values: [Double?]? = record.status == .ok ? ComparisonMetric.allCases.map { $0.value(in: record) } : nil
            s.scenarios[i].labels[record.transport.label]![record.repetition] = .some(values)
            guard s.scenarios[i].settledAt == nil else { return }
            let rounds = s.scenarios[i].rounds
            // Judged only at the end of a round, so every transport has as many repetitions.
            guard let round = rounds.min(), round == rounds.max(), round >= rule.min else { return }
            if Self.isPrecise(s.scenarios[i], rule: rule, floor: s.floor) { s.scenarios[i].settledAt = round }
        }
    }

    static func isPrecise(_ scenario: Scenario, rule: AutoRepetitions, floor: ComparisonFloor?) -> Bool {
        scenario.labels.allSatisfy { label, reps in
            let ok = reps.values.compactMap { $0 }
            // Failed repetitions do not count: a transport needs `min` ok ones.
            guard ok.count >= rule.min else { return false }
            return ComparisonMetric.allCases.indices.allSatisfy { m in
                if let only = rule.metrics, !only.contains(ComparisonMetric.allCases[m].rawValue) { return true }
                let xs = ok.compactMap { $0[m] }.filter(\.isFinite)
                // A metric with no value at all does not apply to this transport.
                guard !xs.isEmpty else { return true }
                guard xs.count >= rule.min, let median = OrderStatistics.median(xs),
                    let ci = OrderStatistics.medianInterval(xs)
                else { return false }
                let metric = ComparisonMetric.allCases[m].rawValue
                let resolution = floor?.floorMs(metric: metric, a: label, b: label) ?? 0
                return ci.high - ci.low <= max(rule.precision * abs(median), resolution)
            }
        }
    }

    public var report: AutoRepetitions.Report {
        state.withLock { s in
            AutoRepetitions.Report(
                rule: rule,
                scenarios: s.scenarios.map { sc in
                    let done = sc.rounds.min() ?? 0
                    let stopped = sc.settledAt != nil ? "precise" : done >= rule.max ? "max" : "running"
                    return AutoRepetitions.Outcome(scenario: sc.name, repetitions: sc.settledAt ?? done, stopped: stopped)
                })
        }
    }
}
