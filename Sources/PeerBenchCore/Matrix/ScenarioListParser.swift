import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Reads `"matrix": {"scenarios": [...]}`: names of built-ins and objects with `name`,
/// `kind` and the kind's parameters. Every problem names its JSON path; a trace file's
/// problems name the file and line.
struct ScenarioListParser {
    /// Where trace paths are relative to: the matrix file's folder (nil = the working directory).
    var baseDirectory: String?
    var problems: [InputProblem] = []

    static let keysByKind: [String: [String]] = [
        "static": [],
        "walk-away": ["speedMps", "to", "back"],
        "outage": ["atSeconds", "durationSeconds"],
        "body-block": ["depthDb", "lengthSeconds", "periodSeconds"],
        "trace": ["up", "down"],
    ]

    init(baseDirectory: String?) { self.baseDirectory = baseDirectory }

    mutating func fail(_ path: JSONPath, _ message: String) { problems.append(InputProblem(path: path.description, message)) }

    /// The scenarios in order; `[.static]` when the key is absent.
    mutating func parse(_ v: JSONValue?, _ path: JSONPath) -> [ScenarioSpec] {
        guard let v else { return [.static] }
        let list = matrixList(
            v, path, expected: "an array of scenario names or objects", emptyHint: " (leave the key out for the static link only)",
            max: MatrixLoader.Limits.listEntries, problems: &problems)
        var out: [ScenarioSpec] = []
        for (i, e) in list.enumerated() {
            guard let s = scenario(e, path.index(i)) else { continue }
            if out.contains(where: { $0.name == s.name }) { fail(path.index(i), "scenario \"\(s.name)\" is listed twice; give each its own name") }
            out.append(s)
        }
        return out
    }

    private mutating func scenario(_ e: JSONValue, _ p: JSONPath) -> ScenarioSpec? {
        if let name = e.stringValue { return builtIn(named: name, p) }
        guard let o = e.objectValue else {
            fail(p, "expected a scenario name or object, got \(e.typeName)")
            return nil
        }
        guard let (name, kind) = nameAndKind(o, p) else { return nil }
        // Only a problem with the kind's parameters leaves the scenario out.
        let before = problems.count
        guard let kindValue = parameters(of: kind, o, p), problems.count == before else { return nil }
        return ScenarioSpec(name: name, kind: kindValue, json: e)
    }

    /// A scenario given by name: a built-in one, or a problem naming the closest.
    private mutating func builtIn(named name: String, _ p: JSONPath) -> ScenarioSpec? {
        if let s = ScenarioSpec.builtIn(named: name) { return s }
        if name == "trace" {
            fail(p, "a trace scenario needs its files: give an object {\"name\": ..., \"kind\": \"trace\", \"up\": FILE, \"down\": FILE}")
        } else {
            let hint = Suggest.closest(to: name, in: ScenarioSpec.kindNames).map { " (did you mean \"\($0)\"?)" } ?? ""
            fail(
                p,
                "unknown scenario \"\(name)\"\(hint); built-in scenarios: static, walk-away, outage, body-block; or give an object with \"name\" and \"kind\""
            )
        }
        return nil
    }

    /// An object's `name` and `kind`, its other keys checked against the kind's.
    private mutating func nameAndKind(_ o: JSONObject, _ p: JSONPath) -> (name: String, kind: String)? {
        guard let kind = o["kind"]?.stringValue, let allowed = Self.keysByKind[kind] else {
            if let k = o["kind"] {
                let hint = k.stringValue.flatMap { Suggest.closest(to: $0, in: ScenarioSpec.kindNames) }.map { " (did you mean \"\($0)\"?)" } ?? ""
                fail(p.key("kind"), "unknown scenario kind \(k.compactText)\(hint); kinds: \(ScenarioSpec.kindNames.joined(separator: ", "))")
            } else {
                fail(p.key("kind"), "missing required key \"kind\" (one of \(ScenarioSpec.kindNames.joined(separator: ", ")))")
            }
            return nil
        }
        let keys = ["name", "kind"] + allowed
        for k in o.keys where !keys.contains(k) {
            let hint =
                Suggest.closest(to: k, in: keys).map { "; did you mean \"\($0)\"?" } ?? "; a \(kind) scenario allows: \(keys.joined(separator: ", "))"
            fail(p.key(k), "unknown key \"\(k)\"\(hint)")
        }
        guard let name = o["name"]?.stringValue, MatrixLoader.isValidLabel(name) else {
            fail(
                p.key("name"),
                o["name"] == nil
                    ? "missing required key \"name\""
                    : "expected a name of 1 to \(MatrixLoader.Limits.labelLength) characters from A-Z a-z 0-9 . _ - (it becomes part of cell ids), got \(o["name"]!.compactText)"
            )
            return nil
        }
        if name == "static" && kind != "static" { fail(p.key("name"), "\"static\" names the unchanging link; give this scenario another name") }
        return (name, kind)
    }

    /// The kind's parameters, each defaulted when absent; nil (or a new problem) when one is wrong.
    private mutating func parameters(of kind: String, _ o: JSONObject, _ p: JSONPath) -> ScenarioSpec.Kind? {
        func number(_ key: String, _ d: Double, _ range: ClosedRange<Double>, _ what: String) -> Double {
            guard let x = o[key] else { return d }
            guard let v = x.doubleValue, range.contains(v) else {
                fail(
                    p.key(key),
                    "expected \(what) between \(JSONValue.format(range.lowerBound)) and \(JSONValue.format(range.upperBound)), got \(x.compactText)")
                return d
            }
            return v
        }
        switch kind {
        case "walk-away":
            return walkAway(o, p, speed: number("speedMps", ScenarioSpec.defaultWalkingSpeedMps, 0.01...100, "a speed in m/s"))
        case "outage":
            let d = ScenarioSpec.defaultOutage
            return .outage(
                atSeconds: number("atSeconds", d.atSeconds, 0...86_400, "seconds"),
                durationSeconds: number("durationSeconds", d.durationSeconds, 0.001...86_400, "a duration in seconds"))
        case "body-block":
            let before = problems.count
            let d = ScenarioSpec.defaultBodyBlock
            let depth = number("depthDb", d.depthDb, 0...200, "an attenuation in dB")
            let length = number("lengthSeconds", d.lengthSeconds, 0.001...86_400, "a duration in seconds")
            let period = number("periodSeconds", d.periodSeconds, 0.001...86_400, "a period in seconds")
            if problems.count == before && length >= period {
                fail(
                    p.key("lengthSeconds"),
                    "a block of \(JSONValue.format(length)) s does not fit in its period of \(JSONValue.format(period)) s; make it shorter than periodSeconds"
                )
            }
            return .bodyBlock(depthDb: depth, lengthSeconds: length, periodSeconds: period)
        case "trace":
            let up = traceFile(o["up"], p.key("up")), down = traceFile(o["down"], p.key("down"))
            guard let up, let down else { return nil }
            return .trace(up: up, down: down)
        default:
            return .static
        }
    }

    /// `walk-away`'s destination (`to`: metres or "max") and whether it comes `back`.
    private mutating func walkAway(_ o: JSONObject, _ p: JSONPath, speed: Double) -> ScenarioSpec.Kind {
        var to = DistanceSpec.max
        if let t = o["to"] {
            if t.stringValue == "max" {
                to = .max
            } else if let m = t.doubleValue, m > 0, m <= 100_000 {
                to = .meters(m)
            } else {
                fail(p.key("to"), "expected a distance in metres above 0 (at most 100000) or \"max\", got \(t.compactText)")
            }
        }
        var back = false
        if let b = o["back"] {
            if let v = b.boolValue { back = v } else { fail(p.key("back"), "expected true or false, got \(b.compactText)") }
        }
        return .walkAway(speedMps: speed, to: to, back: back)
    }

    private mutating func traceFile(_ v: JSONValue?, _ p: JSONPath) -> MahimahiTrace? {
        guard let v else {
            fail(p, "missing required key \"\(p.description.split(separator: ".").last ?? "")\" (a mahimahi trace file, relative to the matrix file)")
            return nil
        }
        guard let file = v.stringValue, !file.isEmpty else {
            fail(p, "expected a file name, got \(v.compactText)")
            return nil
        }
        let resolved = file.hasPrefix("/") || baseDirectory == nil ? file : baseDirectory! + "/" + file
        do {
            return try MahimahiTrace.load(path: resolved, named: resolved)
        } catch {
            // The file's own problem (with its line), and where the matrix names it.
            for var q in error.problems {
                q.message = "\(q.message) (named by \(p.description))"
                problems.append(q)
            }
            return nil
        }
    }
}
