import PeerBenchJSON

/// Thrown when a cell's work does not finish by its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var seconds: Double
    public var description: String { "cell did not finish within \(JSONValue.format(seconds)) s" }
}
