import PeerBenchJSON

/// What the application sends in a cell: the matrix's optional dimension
/// `"matrix": {"workloads": [...]}` (docs/WORKLOADS.md). Absent means `upload` only:
/// the client sends the payload's count x size to the server on one connection, as
/// every cell always did, so a matrix without the key keeps its cells and cell ids.
public struct WorkloadSpec: Sendable, Hashable {
    /// Which way data goes. Up = client to server; `bidir` = both at once.
    public enum Direction: String, Sendable, Hashable, CaseIterable, Codable {
        case up, down, bidir
    }

    public enum Kind: Sendable, Hashable {
        /// The payload's count x size as fast as the transport takes it, in `direction`,
        /// dealt among `WorkloadSpec.streams` parallel flows.
        case bulk(direction: Direction)
        /// `requests` transactions: `requestBytes` to the server answered by `responseBytes`
        /// back, at most `concurrency` outstanding at a time.
        case requestResponse(requests: Int, requestBytes: Int, responseBytes: Int, concurrency: Int)
        /// A frame of `frameBytes` every `periodNanos` for `frames` frames in `direction`;
        /// a frame arriving more than `deadlineNanos` after its schedule is late.
        case isochronous(frameBytes: Int, periodNanos: UInt64, frames: Int, direction: Direction, deadlineNanos: UInt64)
    }

    /// Unique within the matrix; part of the cell id (when not the default) and of compare's scenario.
    public var name: String
    public var kind: Kind
    /// As written in matrix.json; nil for the implicit `upload`.
    public var json: JSONValue?
    /// Bulk: parallel flows the payload's messages are dealt among (tcp and tls: one
    /// connection each), all at once; 1 for every other kind.
    public var streams: Int

    public init(name: String, kind: Kind, json: JSONValue?, streams: Int = 1) {
        self.name = name
        self.kind = kind
        self.json = json
        self.streams = streams
    }

    /// Every matrix without `"workloads"` has only this: today's upload.
    public static let upload = WorkloadSpec(name: "upload", kind: .bulk(direction: .up), json: nil)

    /// Bulk up on one flow: what every cell ran before workloads, named `upload` or otherwise.
    public var isUpload: Bool {
        if case .bulk(.up) = kind { return streams == 1 }
        return false
    }

    /// The implicit upload (no `workloads` key): its cells keep the ids they always had.
    public var isDefault: Bool { json == nil }

    /// Whether the cell's payload (count x size) is what moves: only `bulk` uses it; the
    /// other kinds carry their own sizes, so their cells have no payload.
    public var usesPayload: Bool {
        if case .bulk = kind { return true }
        return false
    }

    /// The kind's name as matrix.json and records spell it.
    public var kindName: String {
        switch kind {
        case .bulk: "bulk"
        case .requestResponse: "request-response"
        case .isochronous: "isochronous"
        }
    }

    /// The direction data goes (request-response: `bidir`, both ways).
    public var direction: Direction {
        switch kind {
        case .bulk(let d), .isochronous(_, _, _, let d, _): d
        case .requestResponse: .bidir
        }
    }

    /// The record's `workload` object: the entry as resolved, defaults filled in.
    public var resolvedJSON: JSONValue {
        var o = JSONObject()
        o["name"] = .string(name)
        o["kind"] = .string(kindName)
        o["direction"] = .string(direction.rawValue)
        o["streams"] = JSONValue(streams)
        switch kind {
        case .bulk: break
        case .requestResponse(let n, let a, let b, let c):
            o["requests"] = JSONValue(n)
            o["request_bytes"] = JSONValue(a)
            o["response_bytes"] = JSONValue(b)
            o["concurrency"] = JSONValue(c)
        case .isochronous(let size, let period, let frames, _, let deadline):
            o["frame_bytes"] = JSONValue(size)
            o["period_ms"] = JSONValue(Double(period) / 1e6)
            o["frames"] = JSONValue(frames)
            o["deadline_ms"] = JSONValue(Double(deadline) / 1e6)
        }
        return .object(o)
    }

    /// One line for `validate`.
    public var summary: String {
        func ms(_ ns: UInt64) -> String { JSONValue.format(Double(ns) / 1e6) }
        switch kind {
        case .bulk(let d): return "\(name) (bulk): the payload, \(d.rawValue)" + (streams > 1 ? ", over \(streams) parallel flows" : "")
        case .requestResponse(let n, let a, let b, let c):
            return "\(name) (request-response): \(n) x \(a) B answered by \(b) B, \(c) outstanding"
        case .isochronous(let size, let period, let frames, let d, let deadline):
            return "\(name) (isochronous): \(frames) frames of \(size) B every \(ms(period)) ms, \(d.rawValue), late after \(ms(deadline)) ms"
        }
    }
}

extension WorkloadSpec {
    /// Bounds a workload entry may not exceed: what a server (serve, too) accepts.
    public enum Limits {
        public static let requests = 1_000_000
        public static let concurrency = 64
        public static let streams = 16
        public static let messageBytes = 16 << 20
        public static let frames = 100_000
        public static let frameBytes = 1 << 20
        /// Shortest and longest frame period, ms.
        public static let periodMs: ClosedRange<Double> = 1...10_000
    }

    /// For a plugin that runs every kind: refuses a workload other than the upload with
    /// the options in `uploadOnly` (name, set) that assume the upload (`reconnect`,
    /// `loadedRttProbes`), and parallel `streams` unless the plugin runs them.
    public func check(
        transport: String, uploadOnly: [(name: String, set: Bool)], parallelStreams: Bool = false,
        path: JSONPath
    ) -> [InputProblem] {
        var problems: [InputProblem] = []
        if streams > 1 && !parallelStreams {
            problems.append(InputProblem(path: path.description, "\(transport): parallel streams (\(streams)) are unsupported by this transport"))
        }
        if isUpload { return problems }
        return problems
            + uploadOnly.filter(\.set).map {
                InputProblem(
                    path: path.description,
                    "\(transport): option \"\($0.name)\" runs with the upload only; the \(kindName) workload \"\(name)\" is unsupported with it")
            }
    }

    /// The default deadline of a frame: three periods, at least 100 ms (a jitter buffer's usual depth).
    public static func defaultDeadlineNanos(periodNanos: UInt64) -> UInt64 { max(3 * periodNanos, 100_000_000) }
}
