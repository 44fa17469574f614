/// A validated test matrix: environments x distances x payloads, the transports to
/// run in each, and the run's settings. Built by `MatrixLoader` from matrix.json.
public struct Matrix: Sendable {
    public var name: String
    public var repetitions: Int
    public var rttProbes: Int
    /// How the RTT probes are sent (`"rttMethod"`); `.pingPong` when absent.
    public var rttMethod: RTTMethod = .pingPong
    /// Pipelined probes only: nanoseconds between probe sends (`"rttProbeIntervalMs"`); 0 = back to back.
    public var rttProbeSpacingNanos: UInt64 = 0
    public var cellTimeoutSeconds: Double
    public var seed: UInt64
    public var transports: [TransportSpec]
    public var environments: [EnvironmentSpec]
    public var distances: [DistanceSpec]
    public var counts: [Int]
    public var sizes: [Int]
    /// How the link changes during a cell (`"scenarios"`); `[.static]` when absent.
    public var scenarios: [ScenarioSpec] = [.static]
    /// The competing-flow variants each cell runs with (`crossTraffic`); nil = none.
    /// `[nil]` when the matrix has no `crossTraffic`.
    public var crossTraffic: [CrossTrafficSpec?] = [nil]
    /// The document as read, for the manifest; `hash` identifies it.
    public var document: JSONValue

    /// Identifies the matrix's content (FNV-1a 64 of its compact JSON), so a run
    /// folder can tell whether records came from the same matrix.
    public var hash: String { "fnv1a64:" + StableHash.hex(document.compactText) }

    public var payloads: [Payload] { counts.flatMap { c in sizes.map { Payload(count: c, size: $0) } } }
}

/// One transport configuration of the matrix (`{"plugin": "tcp", "label": "tcp-nodelay", "options": {...}}`).
public struct TransportSpec: Sendable, Codable, Hashable {
    public var plugin: String
    public var label: String
    /// Options as written in matrix.json (nil when absent).
    public var options: JSONValue?
    /// Options with defaults filled in, as the plugin read them.
    public var effectiveOptions: JSONValue
    public var usesPayload: Bool
    /// Index in the matrix's `transports` array, for error messages.
    public var index: Int
    /// The entry's `wifi` object (performance mode, service class); nil when absent,
    /// which runs with `WifiSettings.default`.
    public var wifi: WifiSettings? = nil

    /// What the cell runs with: the entry's `wifi`, or the platform's defaults.
    public var effectiveWifi: WifiSettings { wifi ?? .default }
}

/// A surrounding: a built-in radio environment, an inline radio profile, or fixed
/// link parameters.
public struct EnvironmentSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case builtIn
        case radio(JSONValue)
        case fixed(FixedLink)
    }
    public var name: String
    public var kind: Kind
    /// As written in matrix.json; part of the cell id.
    public var json: JSONValue
}

/// A distance in metres, or `"max"`: the largest distance the link model still connects.
public enum DistanceSpec: Sendable, Hashable {
    case meters(Double)
    case max

    /// The matrix's value as text: `"10"`, `"2.5"`, `"max"`.
    public var label: String {
        switch self {
        case .meters(let m): JSONValue.format(m)
        case .max: "max"
        }
    }
}

extension TransportSpec {
    enum CodingKeys: String, CodingKey {
        case plugin, label, options, effectiveOptions = "effective_options", usesPayload = "uses_payload", index, wifi
    }
}
