import PeerBenchPlugin

/// Each transport label against itself across two runs of the same matrix: what
/// `peerbench compare --baseline OLD NEW --format json` writes (docs/COMPARE.md). A
/// contract like `ComparisonDocument`: extend it, never rename or remove a key.
public struct BaselineDocument: Sendable, Equatable, Codable {
    public var schema: String = "peerbench.baseline/1"
    public var alpha: Double
    public var old: String
    public var new: String
    public var warnings: [String]
    public var scenarios: [Scenario]
    /// Both runs' measurement floor, each figure the larger of the two; null when neither
    /// manifest has one. Changes within it are `unchanged` (`below_floor`).
    public var measurementFloor: ComparisonFloor?
    /// The two runs' notes (`run --note`); null where a run has none.
    public var oldNote: String?
    public var newNote: String?

    public init(alpha: Double, old: String, new: String, warnings: [String], scenarios: [Scenario], measurementFloor: ComparisonFloor? = nil) {
        self.alpha = alpha
        self.old = old
        self.new = new
        self.warnings = warnings
        self.scenarios = scenarios
        self.measurementFloor = measurementFloor
        self.oldNote = nil
        self.newNote = nil
    }

    enum CodingKeys: String, CodingKey {
        case schema, alpha, old, new, warnings, scenarios, measurementFloor = "measurement_floor", oldNote = "old_note", newNote = "new_note"
    }

    public struct Scenario: Sendable, Equatable, Codable {
        public var environment: String
        public var distanceLabel: String
        public var payload: String
        public var changes: [Change]

        enum CodingKeys: String, CodingKey { case environment, distanceLabel = "distance_label", payload, changes }
    }

    /// One label and metric, NEW against OLD.
    public struct Change: Sendable, Equatable, Codable {
        public var label: String
        public var metric: String
        public var old: ComparisonDocument.MetricSummary
        public var new: ComparisonDocument.MetricSummary
        /// Hodges-Lehmann shift NEW - OLD over |median of OLD|, and its interval; nil where
        /// OLD's median is 0 or the samples are too small for an interval.
        public var relativeChange: Double?
        public var relativeCILow: Double?
        public var relativeCIHigh: Double?
        /// Hodges-Lehmann shift NEW - OLD in the metric's unit (what an absolute threshold
        /// is compared with); nil where a side has no value.
        public var shift: Double?
        public var pValue: Double?
        /// Holm-adjusted within the scenario x metric (over labels).
        public var pAdjusted: Double?
        public var cliffsDelta: Double?
        public var verdict: Verdict
        /// The floor of this label and metric in both runs, ms; null where none applies.
        public var floorMs: Double?
        /// `below_floor` when the test finds a change but its interval does not clear `floor_ms`; else null.
        public var reason: String?
        /// With thresholds (`--thresholds`, `--fail-on-regression`): whether an `improved`
        /// or `regressed` change is past its metric's threshold (false for the other
        /// verdicts); null without thresholds.
        public var pastThreshold: Bool?

        enum CodingKeys: String, CodingKey {
            case label, metric, old, new, relativeChange = "relative_change", relativeCILow = "relative_ci_low"
            case relativeCIHigh = "relative_ci_high", shift, pValue = "p_value", pAdjusted = "p_adjusted", cliffsDelta = "cliffs_delta", verdict
            case floorMs = "floor_ms", reason, pastThreshold = "past_threshold"
        }
    }

    public enum Verdict: String, Sendable, Equatable, Codable, CaseIterable {
        case improved, regressed, unchanged, insufficient
    }

    /// The document with every change's `pastThreshold` set from `thresholds`.
    public func applying(_ thresholds: Thresholds) -> BaselineDocument {
        var doc = self
        for i in doc.scenarios.indices {
            for j in doc.scenarios[i].changes.indices {
                let c = doc.scenarios[i].changes[j]
                doc.scenarios[i].changes[j].pastThreshold = (c.verdict == .regressed || c.verdict == .improved) && thresholds.isPast(c)
            }
        }
        return doc
    }

    /// Changes with `verdict` past their threshold (`applying` first), in document order.
    public func past(_ verdict: Verdict) -> [(scenario: Scenario, change: Change)] {
        scenarios.flatMap { s in s.changes.filter { $0.verdict == verdict && $0.pastThreshold == true }.map { (s, $0) } }
    }
}
