import PeerBenchPlugin

/// `"repetitions": "auto[:MAX]"` (or `run --repetitions auto[:MAX]`): each scenario's
/// cells repeat, in ABAB order, until every compared metric's 95 % interval of the
/// median is narrower than `precision` x |median| for every transport, or MAX is
/// reached (docs/COMPARE.md, "Repetitions until the answer is clear"). The plan holds
/// MAX repetitions; a `RepetitionJudge` skips the rounds a settled scenario no longer needs.
public struct AutoRepetitions: Sendable, Equatable, Codable {
    /// Rounds every scenario runs: the fewest from which the median has a 95 % interval.
    public var min: Int
    public var max: Int
    /// The widest interval accepted, as a fraction of |median| (`"repetitionPrecision"`).
    public var precision: Double
    /// The metrics that must be that precise (`"repetitionMetrics"`); nil: every metric
    /// compare tests. Tails (`rtt_p99_ms`, `jitter_ms`) rarely settle on a busy machine.
    public var metrics: [String]?

    /// compare's metric names (`ComparisonMetric` in PeerBenchAnalysis, which a test
    /// keeps equal to this list), for checking `"repetitionMetrics"` where the matrix is read.
    /// A metric that reads a record key of its own is named by it (`Record.CodingKeys`).
    public static let metricNames = [
        Record.CodingKeys.throughputMbps.rawValue, "rtt_p50_ms", "rtt_p99_ms",
        Record.CodingKeys.jitterMs.rawValue, Record.DeliveryStats.CodingKeys.lossRatio.rawValue,
        Record.CodingKeys.connectMs.rawValue, "uwb_availability", "uwb_error_m", "request_response_p50_ms",
        "frame_delay_p99_ms", "late_frames", Record.Scenario.CodingKeys.reconnectMs.rawValue,
    ]

    static let minimumRounds = 6
    public static let defaultMax = 20
    public static let defaultPrecision = 0.05

    public init(max: Int = AutoRepetitions.defaultMax, precision: Double = AutoRepetitions.defaultPrecision) {
        min = AutoRepetitions.minimumRounds
        self.max = max
        self.precision = precision
    }

    /// `auto` or `auto:MAX`; nil for anything else (a number is a fixed count). The
    /// problem names what is wrong with an `auto:` spelling.
    public static func parse(_ text: String) -> (max: Int?, problem: String?)? {
        guard text == "auto" || text.hasPrefix("auto:") else { return nil }
        if text == "auto" { return (nil, nil) }
        guard let n = Int(text.dropFirst(5)), n >= minimumRounds, n <= 10_000 else {
            return (
                nil,
                "\"\(text)\": MAX after \"auto:\" must be a whole number from \(minimumRounds) (the fewest repetitions with an interval of the median) to 10000"
            )
        }
        return (n, nil)
    }

    /// How the matrix or command line spells it.
    var spelling: String { "auto:\(max)" }

    /// One scenario's outcome, for the manifest.
    public struct Outcome: Sendable, Equatable, Codable {
        public var scenario: String
        public var repetitions: Int
        /// `precise` (every interval narrow enough), `max` (ran to MAX), `running` (not done).
        public var stopped: String
        public init(scenario: String, repetitions: Int, stopped: String) {
            self.scenario = scenario
            self.repetitions = repetitions
            self.stopped = stopped
        }
    }

    /// The manifest's `auto_repetitions`: the rule and how each scenario ended.
    public struct Report: Sendable, Equatable, Codable {
        public var min: Int
        public var max: Int
        public var precision: Double
        /// null: every metric compare tests.
        public var metrics: [String]?
        public var scenarios: [Outcome]
        public init(rule: AutoRepetitions, scenarios: [Outcome]) {
            min = rule.min
            max = rule.max
            precision = rule.precision
            metrics = rule.metrics
            self.scenarios = scenarios
        }
    }
}

extension Cell {
    /// The comparison's scenario of this cell, as `compare` titles it: environment (with a
    /// link scenario other than static, and a competing flow), distance, payload.
    public var comparisonScenario: String {
        var env = environment.name
        if !scenario.isStatic { env += " · " + scenario.name }
        if let c = crossTraffic { env += " · cross \(c)" }
        let dist = distance == .max ? "max" : "\(distance.label) m"
        return [env, dist, payload.map { "\($0.count)x\($0.size) B" } ?? "no payload"].joined(separator: " · ")
    }
}
