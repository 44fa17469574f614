public import PeerBenchPlugin

/// The `uwb` plugin's options from matrix.json, validated, with their defaults.
public struct UWBOptions: Sendable, Hashable {
    public var updateRateHz: Double = 20
    public var durationSeconds: Double = 5
    public var tokenChannel: TokenChannelKind = .message
    public var peer: DeviceClass = .phone
    public var bearingDegrees: Double = 0
    public var chip: ChipGeneration = .first
    public var gattConnectionIntervalMs: Double = GATTTokenChannel.defaultConnectionIntervalMs
    public var removalTimeoutSeconds: Double = 2

    public init() {}

    /// Reads every option (unknown keys are rejected by the registry afterwards).
    public init(_ o: PluginOptions) throws {
        let d = UWBOptions()
        updateRateHz = try o.double("updateRateHz", default: d.updateRateHz, range: 1...200)!
        durationSeconds = try o.double("durationSeconds", default: d.durationSeconds, range: 0.5...3600)!
        tokenChannel = try o.choice("tokenChannel", default: d.tokenChannel)
        peer = try o.choice("peer", default: d.peer)
        bearingDegrees = try o.double("bearingDegrees", default: d.bearingDegrees, range: -180...180)!
        chip = try o.choice("chip", default: d.chip)
        gattConnectionIntervalMs = try o.double("gattConnectionIntervalMs", default: d.gattConnectionIntervalMs, range: 7.5...4000)!
        removalTimeoutSeconds = try o.double("removalTimeoutSeconds", default: d.removalTimeoutSeconds, range: 0.1...60)!
    }

    /// What `peerbench list` shows.
    static let descriptors: [OptionDescriptor] = [
        OptionDescriptor(
            "updateRateHz", type: "number 1–200", default: "20",
            help: "Ranging rounds (updates) per second; field reports range from 10–30 Hz to ~50 Hz."),
        OptionDescriptor(
            "durationSeconds", type: "number 0.5–3600", default: "5",
            help: "Ranging time per cell, from running the session to invalidating it."),
        OptionDescriptor(
            "tokenChannel", type: "\"message\" | \"gatt\"", default: "\"message\"",
            help: "Out-of-band token exchange: one reliable message each way, or GATT long write / read blob at ATT_MTU 185."),
        OptionDescriptor(
            "peer", type: "\"phone\" | \"watch\"", default: "\"phone\"",
            help: "The peer device; a watch peer never yields a direction."),
        OptionDescriptor(
            "bearingDegrees", type: "number -180–180", default: "0",
            help: "Azimuth of the peer relative to the phone's back; direction only within ±60°."),
        OptionDescriptor(
            "chip", type: "\"first\" | \"second\"", default: "\"first\"",
            help: "UWB chip generation of both devices: reach ~30 m (first) or ~50 m (second)."),
        OptionDescriptor(
            "gattConnectionIntervalMs", type: "number 7.5–4000", default: "30",
            help: "BLE connection interval; each GATT operation waits one."),
        OptionDescriptor(
            "removalTimeoutSeconds", type: "number 0.1–60", default: "2",
            help: "Without a distance for this long, the peer is removed with reason timeout."),
    ]
}
