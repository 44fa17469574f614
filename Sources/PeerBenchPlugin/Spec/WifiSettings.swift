/// Wi-Fi Aware's per-connection knobs, as a transport entry of matrix.json sets them:
/// `"wifi": {"performanceMode": "realtime", "serviceClass": "interactiveVideo"}`.
/// Defaults are the platform's: `bulk` and `bestEffort`.
///
/// The settings travel with the `TransportSpec` (Codable), so they reach a worker
/// process and a remote peer without further plumbing.
public struct WifiSettings: Sendable, Codable, Hashable {
    /// The radio's duty cycle, and the class the cell's sockets are marked with.
    public var performanceMode: PerformanceMode, serviceClass: ServiceClass

    public init(performanceMode: PerformanceMode = .bulk, serviceClass: ServiceClass = .bestEffort) {
        self.performanceMode = performanceMode
        self.serviceClass = serviceClass
    }

    /// What a transport entry without `wifi` runs with.
    public static let `default` = WifiSettings()

    /// The keys of the `wifi` object, for error messages and the cell id.
    public static let keys = ["performanceMode", "serviceClass"]

    /// Canonical text for the cell id: both values, whether written or defaulted.
    public var canonicalText: String { "wifi:\(performanceMode.rawValue),\(serviceClass.rawValue)" }
}
