import PeerBenchJSON
import PeerBenchPlugin

/// Reads `"matrix": {"workloads": [...]}`: built-in names (`upload`, `download`,
/// `bidir`) and objects with `name`, `kind` and the kind's parameters. Every problem
/// names its JSON path. In this module because a remote server reads a cell's
/// workload with the same rules (and the same bounds) as the matrix loader.
public struct WorkloadListParser {
    public private(set) var problems: [InputProblem] = []

    public static let keysByKind: [String: [String]] = [
        "bulk": ["direction", "streams"],
        "request-response": ["requests", "requestBytes", "responseBytes", "concurrency"],
        "isochronous": ["frameBytes", "periodMs", "durationSeconds", "direction", "deadlineMs"],
    ]
    public static let kindNames = ["bulk", "request-response", "isochronous"]
    /// The built-ins a name alone means: bulk in each direction.
    public static let builtIns: [String: WorkloadSpec.Direction] = ["upload": .up, "download": .down, "bidir": .bidir]

    /// Bytes of requests and answers in flight at once (concurrency x both sizes).
    static let maxInFlightBytes = 1 << 20

    public init() {}

    mutating func fail(_ path: JSONPath, _ message: String) { problems.append(InputProblem(path: path.description, message)) }

    /// The workloads in order; `[.upload]` when the key is absent.
    public mutating func parse(_ v: JSONValue?, _ path: JSONPath, maxEntries: Int = 64) -> [WorkloadSpec] {
        guard let v else { return [.upload] }
        let list = matrixList(
            v, path, expected: "an array of workload names or objects", emptyHint: " (leave the key out for the upload only)",
            max: maxEntries, problems: &problems)
        var out: [WorkloadSpec] = []
        for (i, e) in list.enumerated() {
            guard let w = entry(e, path.index(i)) else { continue }
            if out.contains(where: { $0.name == w.name }) { fail(path.index(i), "workload \"\(w.name)\" is listed twice; give each its own name") }
            out.append(w)
        }
        return out
    }

    /// One entry: a built-in's name or an object.
    public mutating func entry(_ e: JSONValue, _ p: JSONPath) -> WorkloadSpec? {
        if let name = e.stringValue {
            guard let d = Self.builtIns[name] else {
                fail(
                    p,
                    "unknown workload \"\(name)\" (built-ins: \(Self.builtIns.keys.sorted().joined(separator: ", ")); or an object with \"name\" and \"kind\")"
                )
                return nil
            }
            return WorkloadSpec(name: name, kind: .bulk(direction: d), json: e)
        }
        guard let o = e.objectValue else {
            fail(p, "expected a workload name or object, got \(e.typeName)")
            return nil
        }
        guard let name = o["name"]?.stringValue, !name.isEmpty, name.count <= 64 else {
            fail(p.key("name"), "expected a non-empty name of at most 64 characters, got \(o["name"]?.compactText ?? "nothing")")
            return nil
        }
        guard let kind = o["kind"]?.stringValue, let allowed = Self.keysByKind[kind] else {
            fail(
                p.key("kind"),
                "expected one of \(Self.kindNames.map { "\"\($0)\"" }.joined(separator: ", ")), got \(o["kind"]?.compactText ?? "nothing")")
            return nil
        }
        for m in o where m.key != "name" && m.key != "kind" && !allowed.contains(m.key) {
            fail(p.key(m.key), "unknown key for a \(kind) workload (its keys: \(allowed.joined(separator: ", ")))")
        }
        let before = problems.count
        // Only bulk has parallel flows (its key list admits `streams`).
        let streams = kind == "bulk" ? streamCount(o, p) : 1
        let k: WorkloadSpec.Kind?
        switch kind {
        case "bulk": k = bulk(o, p)
        case "request-response": k = requestResponse(o, p)
        default: k = isochronous(o, p)
        }
        guard let k, let streams, problems.count == before else { return nil }
        return WorkloadSpec(name: name, kind: k, json: e, streams: streams)
    }

    private mutating func bulk(_ o: JSONObject, _ p: JSONPath) -> WorkloadSpec.Kind? {
        direction(o, p).map { .bulk(direction: $0) }
    }

    /// `streams`: 1 (the default) to `Limits.streams` parallel flows.
    private mutating func streamCount(_ o: JSONObject, _ p: JSONPath) -> Int? {
        int(o, "streams", p, 1...WorkloadSpec.Limits.streams, default: 1)
    }

    private mutating func requestResponse(_ o: JSONObject, _ p: JSONPath) -> WorkloadSpec.Kind? {
        typealias L = WorkloadSpec.Limits
        let n = int(o, "requests", p, 1...L.requests)
        let a = int(o, "requestBytes", p, 1...L.messageBytes)
        let b = int(o, "responseBytes", p, 1...L.messageBytes)
        let c = int(o, "concurrency", p, 1...L.concurrency, default: 1)
        guard let n, let a, let b, let c else { return nil }
        // Outstanding requests are written without reading their answers meanwhile: what
        // is in flight must fit the sockets' buffers, or both ends would wait on each other.
        if c > 1, c * (a + b) > Self.maxInFlightBytes {
            fail(
                p.key("concurrency"),
                "\(c) outstanding requests of \(a) + \(b) bytes keep \(c * (a + b)) bytes in flight; at most \(Self.maxInFlightBytes) are allowed with a concurrency above 1"
            )
            return nil
        }
        return .requestResponse(requests: n, requestBytes: a, responseBytes: b, concurrency: c)
    }

    private mutating func isochronous(_ o: JSONObject, _ p: JSONPath) -> WorkloadSpec.Kind? {
        typealias L = WorkloadSpec.Limits
        let size = int(o, "frameBytes", p, 1...L.frameBytes)
        let period = number(o, "periodMs", p, L.periodMs, unit: "milliseconds between frames")
        let duration = number(o, "durationSeconds", p, 0.001...3_600, unit: "seconds of frames")
        let d = direction(o, p)
        guard let size, let period, let duration, let d else { return nil }
        let periodNanos = UInt64((period * 1e6).rounded())
        let frames = Int((duration * 1e9 / Double(periodNanos)).rounded(.down))
        guard frames >= 1, frames <= L.frames else {
            fail(
                p.key("durationSeconds"),
                "\(JSONValue.format(duration)) s at one frame every \(JSONValue.format(period)) ms is \(frames) frames; 1 to \(L.frames) are allowed")
            return nil
        }
        var deadline = WorkloadSpec.defaultDeadlineNanos(periodNanos: periodNanos)
        if o["deadlineMs"] != nil {
            guard let ms = number(o, "deadlineMs", p, 0.001...60_000, unit: "milliseconds after its schedule a frame may arrive") else { return nil }
            deadline = UInt64((ms * 1e6).rounded())
        }
        return .isochronous(frameBytes: size, periodNanos: periodNanos, frames: frames, direction: d, deadlineNanos: deadline)
    }

    private mutating func direction(_ o: JSONObject, _ p: JSONPath) -> WorkloadSpec.Direction? {
        guard let v = o["direction"] else { return .up }
        guard let d = v.stringValue.flatMap(WorkloadSpec.Direction.init(rawValue:)) else {
            fail(p.key("direction"), "expected \"up\" (client to server), \"down\" or \"bidir\" (both at once), got \(v.compactText)")
            return nil
        }
        return d
    }

    private mutating func int(_ o: JSONObject, _ key: String, _ p: JSONPath, _ range: ClosedRange<Int>, default d: Int? = nil) -> Int? {
        guard let v = o[key] else {
            if d == nil { fail(p.key(key), "missing: a whole number \(range.lowerBound)...\(range.upperBound)") }
            return d
        }
        guard let i = v.intValue, range.contains(i) else {
            fail(p.key(key), "expected a whole number \(range.lowerBound)...\(range.upperBound), got \(v.compactText)")
            return nil
        }
        return i
    }

    private mutating func number(_ o: JSONObject, _ key: String, _ p: JSONPath, _ range: ClosedRange<Double>, unit: String) -> Double? {
        guard let v = o[key] else {
            fail(p.key(key), "missing: \(unit), \(JSONValue.format(range.lowerBound))...\(JSONValue.format(range.upperBound))")
            return nil
        }
        guard let x = v.doubleValue, range.contains(x) else {
            fail(p.key(key), "expected \(unit), \(JSONValue.format(range.lowerBound))...\(JSONValue.format(range.upperBound)), got \(v.compactText)")
            return nil
        }
        return x
    }
}
