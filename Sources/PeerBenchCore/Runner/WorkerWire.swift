import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

extension PluginSession.Outcome: Codable {
    enum CodingKeys: String, CodingKey { case measured, failed, timedOut = "timed_out", harnessFailed = "harness_failed" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let m = try c.decodeIfPresent(TransportMeasurement.self, forKey: .measured) {
            self = .measured(m)
        } else if let e = try c.decodeIfPresent(String.self, forKey: .failed) {
            self = .failed(e)
        } else if let e = try c.decodeIfPresent(String.self, forKey: .timedOut) {
            self = .timedOut(e)
        } else if let e = try c.decodeIfPresent(String.self, forKey: .harnessFailed) {
            self = .harnessFailed(e)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "no measured, failed, timed_out or harness_failed"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .measured(let m): try c.encode(m, forKey: .measured)
        case .failed(let e): try c.encode(e, forKey: .failed)
        case .timedOut(let e): try c.encode(e, forKey: .timedOut)
        case .harnessFailed(let e): try c.encode(e, forKey: .harnessFailed)
        }
    }

    /// The worker's reply line; a measurement that cannot be encoded becomes a failure saying why.
    public var json: JSONValue {
        do { return try JSONCoding.encode(self) } catch {
            return .object(JSONObject(["harness_failed": .string("the worker could not encode the cell's outcome: \(JSONCoding.describe(error))")]))
        }
    }

    public init(json: JSONValue) throws {
        do { self = try JSONCoding.decode(PluginSession.Outcome.self, from: json) } catch {
            throw TransportError("worker reply not understood (\(JSONCoding.describe(error))): \(json.compactText.prefix(200))")
        }
    }
}

extension CellContextSeed: Codable {
    enum CodingKeys: String, CodingKey {
        case cellID = "cell_id", repetition, seed, payload, rttProbes = "rtt_probes", rttMethod = "rtt_method", rttProbeSpacingNanos =
            "rtt_probe_spacing_ns", workload, appLoop = "app_loop"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Seeds may use all 64 bits; a JSON number (double) would round them, so they travel as text.
        guard let seed = UInt64(try c.decode(String.self, forKey: .seed)) else {
            throw DecodingError.dataCorruptedError(forKey: .seed, in: c, debugDescription: "seed is not an unsigned 64-bit integer")
        }
        self.init(
            cellID: try c.decode(String.self, forKey: .cellID), repetition: try c.decode(Int.self, forKey: .repetition),
            seed: seed, payload: try c.decodeIfPresent(Payload.self, forKey: .payload),
            rttProbes: try c.decode(Int.self, forKey: .rttProbes),
            // A request without the key comes from a runner before `rttMethod`: ping-pong.
            rttMethod: try c.decodeIfPresent(RTTMethod.self, forKey: .rttMethod) ?? .pingPong,
            rttProbeSpacingNanos: try c.decodeIfPresent(UInt64.self, forKey: .rttProbeSpacingNanos) ?? 0)
        // The matrix entry as written, read by the matrix's own rules; absent: the upload.
        if let json = try c.decodeIfPresent(JSONValue.self, forKey: .workload) {
            var parser = WorkloadListParser()
            guard let w = parser.entry(json, JSONPath.root.key("workload")) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .workload, in: c, debugDescription: parser.problems.map(\.description).joined(separator: "; "))
            }
            workload = w
        }
        appLoop = try c.decodeIfPresent(AppLoop.self, forKey: .appLoop) ?? .none
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(cellID, forKey: .cellID)
        try c.encode(repetition, forKey: .repetition)
        try c.encode(String(seed), forKey: .seed)
        try c.encode(payload, forKey: .payload)
        try c.encode(rttProbes, forKey: .rttProbes)
        try c.encode(rttMethod, forKey: .rttMethod)
        try c.encode(rttProbeSpacingNanos, forKey: .rttProbeSpacingNanos)
        try c.encodeIfPresent(workload.json, forKey: .workload)
        if !appLoop.isNone { try c.encode(appLoop, forKey: .appLoop) }
    }
}
