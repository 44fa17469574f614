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

    enum CodingKeys: String, CodingKey { case schema, alpha, old, new, warnings, scenarios, measurementFloor = "measurement_floor" }

    /// Every key is written, `measurement_floor` as null when absent.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(alpha, forKey: .alpha)
        try c.encode(old, forKey: .old)
        try c.encode(new, forKey: .new)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(scenarios, forKey: .scenarios)
        try c.encode(measurementFloor, forKey: .measurementFloor)
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
        public var pValue: Double?
        /// Holm-adjusted within the scenario x metric (over labels).
        public var pAdjusted: Double?
        public var cliffsDelta: Double?
        public var verdict: Verdict
        /// The floor of this label and metric in both runs, ms; null where none applies.
        public var floorMs: Double?
        /// `below_floor` when the test finds a change but its interval does not clear `floor_ms`; else null.
        public var reason: String?

        enum CodingKeys: String, CodingKey {
            case label, metric, old, new, relativeChange = "relative_change", relativeCILow = "relative_ci_low"
            case relativeCIHigh = "relative_ci_high", pValue = "p_value", pAdjusted = "p_adjusted", cliffsDelta = "cliffs_delta", verdict
            case floorMs = "floor_ms", reason
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(label, forKey: .label)
            try c.encode(metric, forKey: .metric)
            try c.encode(old, forKey: .old)
            try c.encode(new, forKey: .new)
            try c.encode(relativeChange, forKey: .relativeChange)
            try c.encode(relativeCILow, forKey: .relativeCILow)
            try c.encode(relativeCIHigh, forKey: .relativeCIHigh)
            try c.encode(pValue, forKey: .pValue)
            try c.encode(pAdjusted, forKey: .pAdjusted)
            try c.encode(cliffsDelta, forKey: .cliffsDelta)
            try c.encode(verdict, forKey: .verdict)
            try c.encode(floorMs, forKey: .floorMs)
            try c.encode(reason, forKey: .reason)
        }
    }

    public enum Verdict: String, Sendable, Equatable, Codable, CaseIterable {
        case improved, regressed, unchanged, insufficient
    }

    /// Significant regressions whose relative change exceeds `percent` (a regression
    /// from a median of 0, which has no relative size, always counts).
    public func regressions(beyond percent: Double) -> [(scenario: Scenario, change: Change)] {
        scenarios.flatMap { s in
            s.changes.filter { c in
                c.verdict == .regressed && (c.relativeChange.map { abs($0) * 100 > percent } ?? true)
            }.map { (s, $0) }
        }
    }
}
