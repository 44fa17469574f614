import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Reads matrix.json, validates every value, and reports all problems at once, each
/// naming the file and the JSON path of the bad value.
public struct MatrixLoader: Sendable {
    public var registry: PluginRegistry
    public var linkModel: any LinkModel
    /// The folder files named by the matrix (scenario traces) are relative to; `load`
    /// sets it to the matrix file's folder. nil = the working directory.
    var baseDirectory: String?

    public init(registry: PluginRegistry, linkModel: any LinkModel, baseDirectory: String? = nil) {
        self.registry = registry
        self.linkModel = linkModel
        self.baseDirectory = baseDirectory
    }

    static let topLevelKeys = [
        "name", "repetitions", "repetitionPrecision", "repetitionMetrics", "rttProbes", "rttMethod", "rttProbeIntervalMs", "rttPayloads", "appLoop",
        "transportsAtOnce", "cellTimeoutSeconds", "seed", "order", "transports", "matrix", "crossTraffic",
    ]
    static let matrixKeys = ["environments", "distances", "payloads"]
    static let payloadKeys = ["counts", "sizes"]
    static let transportKeys = ["plugin", "label", "options", "wifi"]
    static let fixedLinkKeys = ["delayMs", "jitterMs", "lossPercent", "rateMbps", "mtu"]

    /// What a matrix may hold at most. A matrix is a plan a person writes; these bound
    /// the time and memory `validate` and `run` spend on one before any expansion (the
    /// field study's matrix is 1 KB and 800 cells). Documented in docs/UNATTENDED.md.
    public enum Limits {
        /// Bytes of matrix.json.
        static let fileBytes = 1 << 20
        /// Cells of the whole matrix, repetitions included.
        public static let cells = 100_000
        /// Entries of `transports`.
        public static let transports = 64
        /// Entries of each of `environments`, `distances`, `counts` and `sizes`.
        static let listEntries = 100
        /// Characters of a transport label.
        static let labelLength = 64
    }

    /// Loads and validates a matrix file.
    public func load(path: String) throws(InputError) -> Matrix {
        let name = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw InputError(source: name, "file not found (give a matrix file, or run from a folder that has matrix.json)")
        }
        // Checked before reading: a 20 MB file would cost seconds just to parse.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > Limits.fileBytes {
            throw InputError(source: name, "is \(size) bytes; a matrix may be at most \(Limits.fileBytes) bytes (1 MiB)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(source: name, "cannot be read (check its permissions)")
        }
        var loader = self
        loader.baseDirectory = baseDirectory ?? (path as NSString).deletingLastPathComponent
        do { return try loader.parse(Array(data)) } catch { throw error.attributed(to: name) }
    }

    /// Parses and validates matrix JSON text.
    public func parse(_ bytes: [UInt8]) throws(InputError) -> Matrix {
        guard bytes.count <= Limits.fileBytes else {
            throw InputError("the matrix is \(bytes.count) bytes; a matrix may be at most \(Limits.fileBytes) bytes (1 MiB)")
        }
        let doc: JSONValue
        do { doc = try JSONParser.parse(bytes) } catch { throw InputError(error.description) }
        var v = Validator(loader: self)
        let m = v.matrix(doc)
        if !v.problems.isEmpty { throw InputError(v.problems) }
        return m!
    }
}

extension MatrixLoader {
    /// A transport label: 1 to 64 characters from `[A-Za-z0-9._-]`. Labels are typed on
    /// the command line (`--transports`), printed in tables and used in file names, so
    /// spaces, commas, control characters and look-alike Unicode are refused.
    static func isValidLabel(_ s: String) -> Bool {
        guard (1...Limits.labelLength).contains(s.utf8.count) else { return false }
        return s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }
}

extension Matrix {
    /// Cells of the matrix with `repetitions` (default its own), computed without
    /// expanding it. A plugin that ignores payloads runs once per environment x distance.
    public func cellCount(repetitions reps: Int? = nil) -> Int {
        let withPayload = transports.filter(\.usesPayload).count
        // Each cross-traffic variant runs the whole block again, like a repetition.
        return Matrix.cellCount(
            repetitions: (reps ?? repetitions) * crossTraffic.count, environments: environments.count, distances: distances.count,
            payloads: Matrix.payloadRuns(payloads: counts.count * sizes.count, workloads: workloads),
            transportsWithPayload: withPayload, transportsWithout: transports.count - withPayload,
            scenarios: scenarios.count)
    }

    /// Cells a payload-using transport runs per block: each bulk workload once per
    /// payload, every other workload once (it carries its own sizes).
    static func payloadRuns(payloads: Int, workloads: [WorkloadSpec]) -> Int {
        let bulk = workloads.filter(\.usesPayload).count
        let (r, o) = payloads.multipliedReportingOverflow(by: bulk)
        return o ? .max : r + (workloads.count - bulk)
    }

    /// The product, saturating at `Int.max` instead of trapping on overflow.
    static func cellCount(
        repetitions: Int, environments: Int, distances: Int, payloads: Int, transportsWithPayload: Int,
        transportsWithout: Int, scenarios: Int = 1
    ) -> Int {
        func mul(_ a: Int, _ b: Int) -> Int {
            let (r, o) = a.multipliedReportingOverflow(by: b)
            return o ? .max : r
        }
        func add(_ a: Int, _ b: Int) -> Int {
            let (r, o) = a.addingReportingOverflow(b)
            return o ? .max : r
        }
        let perBlock = add(mul(payloads, transportsWithPayload), transportsWithout)
        return mul(mul(mul(mul(repetitions, environments), distances), scenarios), perBlock)
    }
}

/// Accumulates problems while walking the document.
struct Validator {
    let loader: MatrixLoader
    var problems: [InputProblem] = []

    mutating func fail(_ path: JSONPath, _ message: String) { problems.append(InputProblem(path: path.description, message)) }

    mutating func object(_ v: JSONValue?, _ path: JSONPath, allowed: [String], required: [String] = []) -> JSONObject? {
        guard let v else { return nil }
        guard let o = v.objectValue else {
            fail(path, "expected an object, got \(v.typeName)")
            return nil
        }
        for k in o.keys where !allowed.contains(k) {
            let hint = Suggest.closest(to: k, in: allowed).map { "; did you mean \"\($0)\"?" } ?? "; allowed keys: \(allowed.joined(separator: ", "))"
            fail(path.key(k), "unknown key \"\(k)\"\(hint)")
        }
        for k in required where o[k] == nil { fail(path.key(k), "missing required key \"\(k)\"") }
        return o
    }

    mutating func int(_ v: JSONValue?, _ path: JSONPath, default d: Int, min: Int, max: Int = Int.max) -> Int {
        guard let v else { return d }
        guard let i = v.intValue else {
            fail(path, "expected an integer, got \(v.typeName)")
            return d
        }
        guard i >= min, i <= max else {
            fail(path, max == Int.max ? "must be at least \(min), got \(i)" : "must be between \(min) and \(max), got \(i)")
            return d
        }
        return i
    }

    mutating func matrix(_ doc: JSONValue) -> Matrix? {
        let root = JSONPath.root
        guard let top = object(doc, root, allowed: MatrixLoader.topLevelKeys, required: ["transports", "matrix"]) else { return nil }
        let (repetitions, auto) = repetitionOptions(top, root)
        let (rttProbes, rttMethod, spacing) = rttOptions(top, root)
        let (name, timeout, seed) = runOptions(top, root)
        // matrix: environments x distances x payloads
        let mp = root.key("matrix")
        let mo = object(top["matrix"], mp, allowed: MatrixLoader.matrixKeys + ["scenarios", "workloads"], required: MatrixLoader.matrixKeys)
        let scenarios = scenarioList(mo?["scenarios"], mp.key("scenarios"))
        var workloadParser = WorkloadListParser()
        let workloads = workloadParser.parse(mo?["workloads"], mp.key("workloads"), maxEntries: MatrixLoader.Limits.listEntries)
        problems += workloadParser.problems
        let environments = environmentList(mo?["environments"], mp.key("environments"))
        let distances = distanceList(mo?["distances"], mp.key("distances"))
        let pp = mp.key("payloads")
        let po = object(mo?["payloads"], pp, allowed: MatrixLoader.payloadKeys, required: MatrixLoader.payloadKeys)
        let counts = positiveInts(po?["counts"], pp.key("counts"), what: "message count", max: 100_000_000)
        let sizes = positiveInts(po?["sizes"], pp.key("sizes"), what: "message size in bytes", max: 64 << 20)

        let rttPayloads = rttPayloads(top["rttPayloads"], root.key("rttPayloads"), counts: counts, sizes: sizes, rttProbes: rttProbes)
        let transports = transportList(
            top["transports"], root.key("transports"), sizes: sizes, counts: counts,
            workloads: (workloads, mp.key("workloads")))
        let cross = crossTraffic(top["crossTraffic"], root.key("crossTraffic"))
        guard problems.isEmpty else { return nil }
        // Counted, not expanded: the check costs the same for 10 cells and 10 million.
        let withPayload = transports.filter(\.usesPayload).count
        var factors: [(path: JSONPath, what: String, n: Int)] = [
            (root.key("repetitions"), "repetitions", repetitions), (mp.key("environments"), "environments", environments.count),
            (mp.key("distances"), "distances", distances.count), (pp.key("counts"), "counts", counts.count),
            (pp.key("sizes"), "sizes", sizes.count), (root.key("transports"), "transports", transports.count),
        ]
        // The optional dimensions are named only when the matrix has them.
        if top["matrix"]?["scenarios"] != nil { factors.append((mp.key("scenarios"), "scenarios", scenarios.count)) }
        if top["matrix"]?["workloads"] != nil { factors.append((mp.key("workloads"), "workloads", workloads.count)) }
        if top["crossTraffic"] != nil { factors.append((root.key("crossTraffic"), "cross-traffic variants", cross.count)) }
        let total = Matrix.cellCount(
            repetitions: repetitions * cross.count, environments: environments.count, distances: distances.count,
            payloads: Matrix.payloadRuns(payloads: counts.count * sizes.count, workloads: workloads),
            transportsWithPayload: withPayload,
            transportsWithout: transports.count - withPayload, scenarios: scenarios.count)
        if total > MatrixLoader.Limits.cells {
            let biggest = factors.max { $0.n < $1.n }!
            fail(
                biggest.path,
                "the matrix expands to \(total) cells (\(factors.map { "\($0.n) \($0.what)" }.joined(separator: " x "))), more than the limit of \(MatrixLoader.Limits.cells); split it into several matrices or shorten this list"
            )
            return nil
        }
        var matrix = Matrix(
            name: name, repetitions: repetitions, rttProbes: rttProbes, rttMethod: rttMethod, cellTimeoutSeconds: timeout,
            seed: seed, transports: transports, environments: environments, distances: distances,
            counts: counts, sizes: sizes, scenarios: scenarios, crossTraffic: cross, document: doc)
        matrix.rttProbeSpacingNanos = spacing
        matrix.appLoop = appLoop(top["appLoop"], root.key("appLoop"))
        matrix.workloads = workloads
        matrix.rttPayloads = rttPayloads
        matrix.transportsAtOnce = transportsAtOnce(top["transportsAtOnce"], root.key("transportsAtOnce"), transports: transports, order: top["order"])
        guard problems.isEmpty else { return nil }
        matrix.autoRepetitions = auto
        return matrix
    }

    /// `repetitions` (a count, or "auto" with its precision and metrics).
    mutating func repetitionOptions(_ top: JSONObject, _ root: JSONPath) -> (Int, AutoRepetitions?) {
        var repetitions = 1
        var auto: AutoRepetitions?
        // Asked for, even when misspelt: the keys that go with it are not errors then.
        let autoAsked = top["repetitions"]?.stringValue?.hasPrefix("auto") ?? false
        if let r = top["repetitions"], let text = r.stringValue {
            if let (max, problem) = AutoRepetitions.parse(text), problem == nil {
                auto = AutoRepetitions(max: max ?? AutoRepetitions.defaultMax)
                repetitions = auto!.max
            } else {
                fail(
                    root.key("repetitions"),
                    AutoRepetitions.parse(text)?.problem
                        ?? "expected a whole number of repetitions, \"auto\" or \"auto:MAX\", got \(r.compactText)")
            }
        } else {
            repetitions = int(top["repetitions"], root.key("repetitions"), default: 1, min: 1, max: 10_000)
        }
        if let p = top["repetitionPrecision"] {
            if let x = p.doubleValue, x > 0, x < 1 {
                auto?.precision = x
                if !autoAsked { fail(root.key("repetitionPrecision"), "applies to \"repetitions\": \"auto\" (a fixed count runs every repetition)") }
            } else {
                fail(
                    root.key("repetitionPrecision"),
                    "expected the widest 95 % interval accepted, as a fraction of the median above 0 and below 1 (0.05 is 5 %), got \(p.compactText)")
            }
        }
        if let v = top["repetitionMetrics"] {
            let path = root.key("repetitionMetrics")
            if !autoAsked { fail(path, "applies to \"repetitions\": \"auto\" (a fixed count runs every repetition)") }
            if let list = v.arrayValue, !list.isEmpty {
                var names: [String] = []
                for (i, e) in list.enumerated() {
                    if let n = e.stringValue, AutoRepetitions.metricNames.contains(n) {
                        names.append(n)
                    } else {
                        fail(path.index(i), "unknown metric \(e.compactText) (known: \(AutoRepetitions.metricNames.joined(separator: ", ")))")
                    }
                }
                auto?.metrics = names
            } else {
                fail(path, "expected a non-empty list of metric names, got \(v.compactText)")
            }
        }
        return (repetitions, auto)
    }

    /// `rttProbes`, `rttMethod` and `rttProbeIntervalMs` (as nanoseconds between sends).
    mutating func rttOptions(_ top: JSONObject, _ root: JSONPath) -> (Int, RTTMethod, UInt64) {
        let rttProbes = int(top["rttProbes"], root.key("rttProbes"), default: 100, min: 0, max: 1_000_000)
        var rttMethod = RTTMethod.pingPong
        if let r = top["rttMethod"] {
            if let method = r.stringValue.flatMap(RTTMethod.init(rawValue:)) {
                rttMethod = method
            } else {
                fail(
                    root.key("rttMethod"),
                    "expected one of \(RTTMethod.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \(r.compactText)")
            }
        }
        var spacing: UInt64 = 0
        if let v = top["rttProbeIntervalMs"] {
            if let ms = v.doubleValue, ms >= 0, ms <= 1_000 {
                spacing = UInt64((ms * 1e6).rounded())
                if rttMethod != .pipelined && ms > 0 {
                    fail(
                        root.key("rttProbeIntervalMs"),
                        "an interval between probe sends needs \"rttMethod\": \"pipelined\" (ping-pong probes wait for each echo; the send loop has none)"
                    )
                }
            } else {
                fail(root.key("rttProbeIntervalMs"), "expected milliseconds between pipelined probe sends, 0...1000, got \(v.compactText)")
            }
        }
        return (rttProbes, rttMethod, spacing)
    }

    /// `appLoop`: `{"sendMicros": S, "receiveMicros": R}`, each 0-10 000 µs and optional.
    mutating func appLoop(_ v: JSONValue?, _ path: JSONPath) -> AppLoop {
        guard let v else { return .none }
        guard let object = v.objectValue else {
            fail(path, "expected {\"sendMicros\": µs, \"receiveMicros\": µs}, got \(v.compactText)")
            return .none
        }
        for key in object.keys where key != "sendMicros" && key != "receiveMicros" {
            fail(path.key(key), "unknown key; the app loop has \"sendMicros\" and \"receiveMicros\"")
        }
        func micros(_ key: String) -> UInt64 {
            guard let x = object[key] else { return 0 }
            guard let us = x.doubleValue, us >= 0, us <= Double(AppLoop.maxNanos) / 1_000 else {
                fail(path.key(key), "expected microseconds per message, 0...10000, got \(x.compactText)")
                return 0
            }
            return UInt64((us * 1_000).rounded())
        }
        return AppLoop(sendNanos: micros("sendMicros"), receiveNanos: micros("receiveMicros"))
    }

    /// `name`, `cellTimeoutSeconds` and `seed`; `order` is checked here and read by the planner.
    mutating func runOptions(_ top: JSONObject, _ root: JSONPath) -> (String, Double, UInt64) {
        var name = "matrix"
        if let n = top["name"] {
            if let s = n.stringValue, !s.isEmpty { name = s } else { fail(root.key("name"), "expected a non-empty string, got \(n.typeName)") }
        }
        var timeout = 60.0
        if let t = top["cellTimeoutSeconds"] {
            if let x = t.doubleValue, x > 0, x <= 86_400 {
                timeout = x
            } else {
                fail(root.key("cellTimeoutSeconds"), "expected a number of seconds above 0 and at most 86400, got \(t.compactText)")
            }
        }
        var seed: UInt64 = 1
        if let s = top["seed"] {
            if let i = s.intValue, i >= 0 {
                seed = UInt64(i)
            } else {
                fail(root.key("seed"), "expected a non-negative integer, got \(s.compactText)")
            }
        }
        if let o = top["order"], o.stringValue.flatMap(CellOrder.init(rawValue:)) == nil {
            fail(
                root.key("order"), "expected one of \(CellOrder.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), got \(o.compactText)")
        }
        return (name, timeout, seed)
    }

    /// The matrix's `scenarios` (ScenarioListParser); `[static]` when absent.
    mutating func scenarioList(_ v: JSONValue?, _ path: JSONPath) -> [ScenarioSpec] {
        var parser = ScenarioListParser(baseDirectory: loader.baseDirectory)
        let list = parser.parse(v, path)
        problems += parser.problems
        return list
    }

    /// The entries of a list, or none when it is too long: entries of an over-long list
    /// are not validated one by one (that alone could take seconds).
    mutating func nonEmptyArray(_ v: JSONValue?, _ path: JSONPath, max: Int = MatrixLoader.Limits.listEntries) -> [JSONValue] {
        guard let v else { return [] }
        return matrixList(v, path, max: max, problems: &problems)
    }

    mutating func positiveInts(_ v: JSONValue?, _ path: JSONPath, what: String, max: Int) -> [Int] {
        var out: [Int] = []
        for (i, e) in nonEmptyArray(v, path).enumerated() {
            guard let n = e.intValue else {
                fail(path.index(i), "expected an integer \(what), got \(e.typeName)")
                continue
            }
            guard n >= 1 else {
                fail(path.index(i), "a \(what) must be at least 1, got \(n)")
                continue
            }
            guard n <= max else {
                fail(path.index(i), "a \(what) must be at most \(max), got \(n)")
                continue
            }
            if out.contains(n) { fail(path.index(i), "\(n) is listed twice") }
            out.append(n)
        }
        return out
    }

    mutating func distanceList(_ v: JSONValue?, _ path: JSONPath) -> [DistanceSpec] {
        var out: [DistanceSpec] = []
        for (i, e) in nonEmptyArray(v, path).enumerated() {
            let d: DistanceSpec
            if e.stringValue == "max" {
                d = .max
            } else if let m = e.doubleValue, m > 0, m <= 100_000 {
                d = .meters(m)
            } else {
                fail(path.index(i), "expected a distance in metres above 0 (at most 100000) or \"max\", got \(e.compactText)")
                continue
            }
            if out.contains(d) { fail(path.index(i), "distance \(d.label) is listed twice") }
            out.append(d)
        }
        return out
    }

    mutating func environmentList(_ v: JSONValue?, _ path: JSONPath) -> [EnvironmentSpec] {
        var out: [EnvironmentSpec] = []
        let builtIn = loader.linkModel.builtInEnvironments
        for (i, e) in nonEmptyArray(v, path).enumerated() {
            let p = path.index(i)
            var spec: EnvironmentSpec?
            if let name = e.stringValue {
                if builtIn.contains(name) {
                    spec = EnvironmentSpec(name: name, kind: .builtIn, json: e)
                } else {
                    let hint = Suggest.closest(to: name, in: builtIn).map { " (did you mean \"\($0)\"?)" } ?? ""
                    fail(
                        p,
                        "unknown environment \"\(name)\"\(hint); built-in environments: \(builtIn.joined(separator: ", ")); or give an object with \"name\" and \"link\" or \"radio\""
                    )
                }
            } else if let o = object(e, p, allowed: ["name", "link", "radio"], required: ["name"]) {
                let name = o["name"]?.stringValue ?? ""
                if o["name"] != nil && name.isEmpty { fail(p.key("name"), "expected a non-empty string") }
                switch (o["link"], o["radio"]) {
                case (let link?, nil):
                    if let fixed = fixedLink(link, p.key("link")) { spec = EnvironmentSpec(name: name, kind: .fixed(fixed), json: e) }
                case (nil, let radio?):
                    let before = problems.count
                    problems += loader.linkModel.validateProfile(radio, path: p.key("radio"))
                    if problems.count == before { spec = EnvironmentSpec(name: name, kind: .radio(radio), json: e) }
                case (.some, .some):
                    fail(p, "give either \"link\" (fixed parameters) or \"radio\" (a radio profile), not both")
                case (nil, nil):
                    fail(p, "an environment object needs \"link\" (fixed parameters) or \"radio\" (a radio profile)")
                }
            } else if e.objectValue == nil {
                fail(p, "expected an environment name or object, got \(e.typeName)")
            }
            if let s = spec {
                if out.contains(where: { $0.name == s.name }) { fail(p, "environment \"\(s.name)\" is listed twice") }
                out.append(s)
            }
        }
        return out
    }

    mutating func fixedLink(_ v: JSONValue, _ path: JSONPath) -> FixedLink? {
        guard let o = object(v, path, allowed: MatrixLoader.fixedLinkKeys) else { return nil }
        let before = problems.count
        func number(_ key: String, _ range: ClosedRange<Double>, _ unit: String) -> Double? {
            guard let x = o[key] else { return nil }
            guard let d = x.doubleValue, range.contains(d) else {
                fail(
                    path.key(key),
                    "expected \(unit) between \(JSONValue.format(range.lowerBound)) and \(JSONValue.format(range.upperBound)), got \(x.compactText)")
                return nil
            }
            return d
        }
        var f = FixedLink()
        f.delayMs = number("delayMs", 0...10_000, "milliseconds")
        f.jitterMs = number("jitterMs", 0...10_000, "milliseconds")
        f.lossPercent = number("lossPercent", 0...100, "a percentage")
        f.rateMbps = number("rateMbps", 0.001...100_000, "Mbit/s")
        if let m = o["mtu"] {
            if let i = m.intValue, (576...65_535).contains(i) {
                f.mtu = i
            } else {
                fail(path.key("mtu"), "expected an integer MTU between 576 and 65535 bytes, got \(m.compactText)")
            }
        }
        return problems.count == before ? f : nil
    }

    mutating func transportList(
        _ v: JSONValue?, _ path: JSONPath, sizes: [Int], counts: [Int],
        workloads: (list: [WorkloadSpec], path: JSONPath) = ([.upload], .root)
    ) -> [TransportSpec] {
        var out: [TransportSpec] = []
        var labels: [String: Int] = [:]
        for (i, e) in nonEmptyArray(v, path, max: MatrixLoader.Limits.transports).enumerated() {
            let p = path.index(i)
            guard let o = object(e, p, allowed: MatrixLoader.transportKeys, required: ["plugin"]) else { continue }
            guard let plugin = o["plugin"]?.stringValue else {
                if let x = o["plugin"] { fail(p.key("plugin"), "expected a plugin name, got \(x.typeName)") }
                continue
            }
            var label = plugin
            if let l = o["label"] {
                if let s = l.stringValue, MatrixLoader.isValidLabel(s) {
                    label = s
                } else {
                    fail(
                        p.key("label"),
                        "expected a label of 1 to \(MatrixLoader.Limits.labelLength) characters from A-Z a-z 0-9 . _ - (it names the transport in --transports, records and file names), got \(l.compactText)"
                    )
                }
            }
            if let first = labels[label] {
                fail(
                    p.key("label"), "duplicate transport label \"\(label)\" (also used by $.transports[\(first)]); give each transport its own label")
            } else {
                labels[label] = i
            }
            do {
                let (plugin, effective) = try loader.registry.make(plugin, options: o["options"], path: p)
                let usesPayload = type(of: plugin).descriptor.usesPayload
                if usesPayload {
                    for (si, size) in sizes.enumerated() {
                        let pl = Payload(count: counts.first ?? 1, size: size)
                        for var problem in plugin.check(payload: pl, path: JSONPath.root.key("matrix").key("payloads").key("sizes").index(si)) {
                            problem.message = "transport \"\(label)\": " + problem.message
                            problems.append(problem)
                        }
                    }
                    for (wi, workload) in workloads.list.enumerated() {
                        for var problem in plugin.check(workload: workload, path: workloads.path.index(wi)) {
                            problem.message = "transport \"\(label)\": " + problem.message
                            problems.append(problem)
                        }
                    }
                }
                let name = type(of: plugin).descriptor.name
                var spec = TransportSpec(
                    plugin: name, label: label, options: o["options"], effectiveOptions: effective,
                    usesPayload: usesPayload, index: i, wifi: wifi(o["wifi"], p.key("wifi")))
                spec.identityOptions = CellIDOptions.of(plugin: name, written: o["options"], effective: effective)
                out.append(spec)
            } catch let error as InputError {
                problems += error.problems.map {
                    var q = $0
                    if q.path == nil { q.path = p.description }
                    return q
                }
            } catch {
                fail(p, "\(error)")
            }
        }
        return out
    }
}

/// "Did you mean" suggestions for misspelt keys and names.
enum Suggest {
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let (best, d) = scored, d <= max(2, word.count / 3) else { return nil }
        return best
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where j <= b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}
