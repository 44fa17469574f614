import PeerBenchPlugin

/// Fixed link parameters for people who measured their own link:
/// `{"name": "lab", "link": {"delayMs": 10, "jitterMs": 1, "lossPercent": 0.5, "rateMbps": 50, "mtu": 1500}}`.
/// Every key optional; absent means no impairment of that kind.
public struct FixedLink: Sendable, Equatable, Hashable {
    public var delayMs: Double?
    public var jitterMs: Double?
    public var lossPercent: Double?
    public var rateMbps: Double?
    public var mtu: Int?

    public init(delayMs: Double? = nil, jitterMs: Double? = nil, lossPercent: Double? = nil, rateMbps: Double? = nil, mtu: Int? = nil) {
        self.delayMs = delayMs
        self.jitterMs = jitterMs
        self.lossPercent = lossPercent
        self.rateMbps = rateMbps
        self.mtu = mtu
    }

    func resolved(environment: String, distanceLabel: String) -> ResolvedLink {
        var r = ResolvedLink(environment: environment, distanceMeters: Double(distanceLabel), distanceLabel: distanceLabel)
        r.delayMs = delayMs
        r.jitterMs = jitterMs
        r.lossPercent = lossPercent
        r.rateMbps = rateMbps
        r.mtu = mtu
        return r
    }
}
