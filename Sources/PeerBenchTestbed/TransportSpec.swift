import PeerBenchJSON
import PeerBenchPlugin

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
    /// The options the cell id hashes (`CellIDOptions`, docs/RECORDS.md "Cell ids"): the
    /// written ones over the plugin's frozen base, set by the matrix loader; nil (a spec
    /// built in code) hashes `effectiveOptions`. Not sent to workers: ids are the runner's.
    public var identityOptions: JSONValue? = nil

    public init(
        plugin: String, label: String, options: JSONValue?, effectiveOptions: JSONValue, usesPayload: Bool, index: Int,
        wifi: WifiSettings? = nil
    ) {
        self.plugin = plugin
        self.label = label
        self.options = options
        self.effectiveOptions = effectiveOptions
        self.usesPayload = usesPayload
        self.index = index
        self.wifi = wifi
    }

    /// What the cell runs with: the entry's `wifi`, or the platform's defaults.
    public var effectiveWifi: WifiSettings { wifi ?? .default }
}

extension TransportSpec {
    enum CodingKeys: String, CodingKey {
        case plugin, label, options, effectiveOptions = "effective_options", usesPayload = "uses_payload", index, wifi
    }
}
