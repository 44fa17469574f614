import PeerBenchJSON
import PeerBenchPlugin

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
