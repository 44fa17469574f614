import PeerBenchCore
import PeerBenchPlugin

/// The head-to-head comparison as data: what `peerbench compare --format json` writes
/// and what `peerbench report` draws. This is a contract (docs/COMPARE.md): extend it,
/// never rename or remove a key.
public struct ComparisonDocument: Sendable, Equatable, Decodable {
    public var schema: String = "peerbench.compare/1"
    /// Significance level the verdicts use.
    public var alpha: Double
    /// Problems a reader must know about (too few repetitions, mixed runs, missing cells).
    public var warnings: [String]
    public var scenarios: [Scenario]
    /// What the harness could not resolve in these runs (their manifests); null when no
    /// manifest carries a floor. Pairs within it are `no_difference` (`below_floor`).
    public var measurementFloor: ComparisonFloor?
    /// The runs' notes (`run --note`), in the order the folders were given; null when no
    /// run has one.
    public var notes: [RunNote]?

    public init(alpha: Double, warnings: [String] = [], scenarios: [Scenario], measurementFloor: ComparisonFloor? = nil, notes: [RunNote]? = nil) {
        self.alpha = alpha
        self.warnings = warnings
        self.scenarios = scenarios
        self.measurementFloor = measurementFloor
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey { case schema, alpha, warnings, scenarios, measurementFloor = "measurement_floor", notes }

    /// One run folder's `--note`.
    public struct RunNote: Sendable, Equatable, Codable {
        public var directory: String
        public var note: String
        enum CodingKeys: String, CodingKey { case directory, note }

        /// The notes of the run folders that have one (their manifests); nil when none has.
        public static func of(_ directories: [String]) -> [RunNote]? {
            let notes = directories.compactMap { d in
                ((try? RunDirectory(path: d).readManifest()) ?? nil)?.note.map { RunNote(directory: d, note: $0) }
            }
            return notes.isEmpty ? nil : notes
        }
    }

    /// One environment x distance x payload.
    public struct Scenario: Sendable, Equatable, Decodable {
        public var environment: String
        public var distanceLabel: String
        /// `"COUNTxSIZE"`, or `"-"` for transports without payloads.
        public var payload: String
        public var transports: [Transport]
        public var pairs: [Pair]
        /// With one ok repetition per label: their RTT probes compared as samples (metric
        /// `rtt_probe_ms`), evidence about those cells of one run only, never a verdict
        /// across runs; null where there is none (docs/COMPARE.md).
        public var withinRun: [Pair]?

        public init(
            environment: String, distanceLabel: String, payload: String, transports: [Transport], pairs: [Pair],
            withinRun: [Pair]? = nil
        ) {
            self.environment = environment
            self.distanceLabel = distanceLabel
            self.payload = payload
            self.transports = transports
            self.pairs = pairs
            self.withinRun = withinRun
        }

        enum CodingKeys: String, CodingKey {
            case environment, distanceLabel = "distance_label", payload, transports, pairs, withinRun = "within_run"
        }
    }

    /// One transport label in a scenario: a summary per metric name (`throughput_mbps`, `rtt_p50_ms`, ...).
    public struct Transport: Sendable, Equatable, Decodable {
        public var label: String
        public var metrics: [String: MetricSummary]

        public init(label: String, metrics: [String: MetricSummary]) {
            self.label = label
            self.metrics = metrics
        }
    }

    /// A metric over the ok repetitions of one transport in one scenario.
    public struct MetricSummary: Sendable, Equatable, Codable {
        public var n: Int
        public var median: Double?
        /// 95 % confidence interval of the median; nil where n is too small for one.
        public var ciLow: Double?
        public var ciHigh: Double?

        public init(n: Int, median: Double?, ciLow: Double?, ciHigh: Double?) {
            self.n = n
            self.median = median
            self.ciLow = ciLow
            self.ciHigh = ciHigh
        }

        enum CodingKeys: String, CodingKey { case n, median, ciLow = "ci_low", ciHigh = "ci_high" }
    }

    /// Transport `a` against transport `b` on one metric; `verdict` is a's verdict.
    public struct Pair: Sendable, Equatable, Decodable {
        public var a: String
        public var b: String
        public var metric: String
        public var pValue: Double?
        /// Holm-adjusted within the scenario x metric.
        public var pAdjusted: Double?
        public var cliffsDelta: Double?
        /// Hodges-Lehmann shift a - b, with its interval.
        public var shift: Double?
        public var shiftCILow: Double?
        public var shiftCIHigh: Double?
        public var verdict: Verdict
        /// The measurement floor of this pair and metric, ms; null for metrics without one
        /// (not times) or labels whose floor was not measured.
        public var floorMs: Double?
        /// Why the verdict is not what the test alone says: `below_floor` when the test
        /// finds a difference but its interval does not clear `floor_ms`; else null.
        public var reason: String?

        public init(
            a: String, b: String, metric: String, pValue: Double?, pAdjusted: Double?, cliffsDelta: Double?,
            shift: Double?, shiftCILow: Double?, shiftCIHigh: Double?, verdict: Verdict, floorMs: Double? = nil, reason: String? = nil
        ) {
            self.floorMs = floorMs
            self.reason = reason
            self.a = a
            self.b = b
            self.metric = metric
            self.pValue = pValue
            self.pAdjusted = pAdjusted
            self.cliffsDelta = cliffsDelta
            self.shift = shift
            self.shiftCILow = shiftCILow
            self.shiftCIHigh = shiftCIHigh
            self.verdict = verdict
        }

        enum CodingKeys: String, CodingKey {
            case a, b, metric, pValue = "p_value", pAdjusted = "p_adjusted", cliffsDelta = "cliffs_delta", shift
            case shiftCILow = "shift_ci_low", shiftCIHigh = "shift_ci_high", verdict, floorMs = "floor_ms", reason
        }
    }

    public enum Verdict: String, Sendable, Equatable, Codable, CaseIterable {
        case better, worse
        case noDifference = "no_difference"
        case insufficient
    }
}
