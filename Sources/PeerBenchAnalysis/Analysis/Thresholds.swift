import Foundation
import PeerBenchJSON
import PeerBenchPlugin

/// How large a significant change against a baseline must be before CI should care
/// (`compare --baseline ... --thresholds FILE`, docs/COMPARE.md "Thresholds"): per metric
/// (each percentile is its own metric, `rtt_p50_ms`, `rtt_p99_ms`), a relative and/or an
/// absolute size. The statistics stay in charge: a change is only ever a regression or an
/// improvement when the test says so; the threshold decides whether it is large enough
/// to count. For example:
///
///     {"default": {"percent": 5},
///      "metrics": {"throughput_mbps": {"percent": 5}, "rtt_p99_ms": {"absolute": 2}}}
public struct Thresholds: Sendable, Equatable {
    /// One metric's allowance. With both bounds a change must exceed both to count
    /// (the allowance is the larger of the two), as `isclose` tolerances combine.
    public struct Limit: Sendable, Equatable {
        /// Percent of the baseline's median, >= 0.
        public var percent: Double?
        /// In the metric's own unit (ms, Mbit/s, a loss fraction), >= 0.
        public var absolute: Double?

        public init(percent: Double? = nil, absolute: Double? = nil) {
            self.percent = percent
            self.absolute = absolute
        }
    }

    public var metrics: [ComparisonMetric: Limit]
    /// For metrics without their own entry; nil: every significant change counts.
    public var fallback: Limit?

    public init(metrics: [ComparisonMetric: Limit] = [:], fallback: Limit? = nil) {
        self.metrics = metrics
        self.fallback = fallback
    }

    /// What `--fail-on-regression PCT` always meant: PCT percent for every metric.
    public static func percent(_ pct: Double) -> Thresholds { Thresholds(fallback: Limit(percent: pct)) }

    public func limit(for metric: String) -> Limit? {
        ComparisonMetric(rawValue: metric).flatMap { metrics[$0] } ?? fallback
    }

    /// Whether `change` is past its metric's limit. A change from a baseline median of 0
    /// has no relative size: past any percentage.
    func isPast(_ change: BaselineDocument.Change) -> Bool {
        guard let limit = limit(for: change.metric) else { return true }
        if let pct = limit.percent, let rel = change.relativeChange, abs(rel) * 100 <= pct { return false }
        if let absolute = limit.absolute, let shift = change.shift, abs(shift) <= absolute { return false }
        return true
    }

    static let keys = ["default", "metrics"]
    static let limitKeys = ["percent", "absolute"]

    /// The thresholds file; errors name the file and the JSON path at fault.
    public static func load(path: String) throws(InputError) -> Thresholds {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw InputError(source: path, "cannot read the file (--thresholds)")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(Array(bytes)) } catch { throw InputError(source: path, "not valid JSON: \(error)") }
        do { return try parse(json) } catch { throw error.attributed(to: path) }
    }

    /// A thresholds document already parsed; every problem is reported, each with its path.
    public static func parse(_ json: JSONValue) throws(InputError) -> Thresholds {
        guard let object = json.objectValue else {
            throw InputError(path: "$", "expected an object with \"default\" and/or \"metrics\", got \(json.typeName)")
        }
        var out = Thresholds()
        var problems: [InputProblem] = []
        for member in object {
            let path = JSONPath.root.key(member.key)
            switch member.key {
            case "default":
                out.fallback = limit(member.value, path: path, problems: &problems)
            case "metrics":
                guard let metrics = member.value.objectValue else {
                    problems.append(
                        InputProblem(
                            path: path.description, "expected an object of metric: {\"percent\", \"absolute\"}, got \(member.value.typeName)"))
                    continue
                }
                for m in metrics {
                    let p = path.key(m.key)
                    guard let metric = ComparisonMetric(rawValue: m.key) else {
                        let known = ComparisonMetric.allCases.map(\.rawValue).joined(separator: ", ")
                        problems.append(InputProblem(path: p.description, "unknown metric \"\(m.key)\" (known: \(known))"))
                        continue
                    }
                    if let l = limit(m.value, path: p, problems: &problems) { out.metrics[metric] = l }
                }
            default:
                problems.append(InputProblem(path: path.description, "unknown key (known: \(keys.joined(separator: ", ")))"))
            }
        }
        if !problems.isEmpty { throw InputError(problems) }
        return out
    }

    static func limit(_ value: JSONValue, path: JSONPath, problems: inout [InputProblem]) -> Limit? {
        guard let o = value.objectValue else {
            problems.append(InputProblem(path: path.description, "expected an object with \"percent\" and/or \"absolute\", got \(value.typeName)"))
            return nil
        }
        var l = Limit()
        let before = problems.count
        for m in o {
            let p = path.key(m.key)
            guard limitKeys.contains(m.key) else {
                problems.append(InputProblem(path: p.description, "unknown key (known: \(limitKeys.joined(separator: ", ")))"))
                continue
            }
            guard let x = m.value.doubleValue, x.isFinite else {
                problems.append(InputProblem(path: p.description, "expected a number, got \(m.value.typeName)"))
                continue
            }
            guard x >= 0 else {
                problems.append(
                    InputProblem(
                        path: p.description,
                        "a threshold is a size, 0 or more, got \(m.value.compactText); "
                            + "the metric decides which direction is worse (lower Mbit/s, higher RTT)"))
                continue
            }
            if m.key == "percent" { l.percent = x } else { l.absolute = x }
        }
        if problems.count == before, l.percent == nil, l.absolute == nil {
            problems.append(InputProblem(path: path.description, "give \"percent\", \"absolute\" or both"))
        }
        return problems.count == before ? l : nil
    }
}
