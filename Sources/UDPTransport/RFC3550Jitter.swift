/// RFC 3550 §6.4.1 interarrival jitter, as iperf3 computes it for UDP.
///
/// For packet i with send time S_i and arrival time R_i (each on its own clock),
/// D(i-1, i) = (R_i - R_{i-1}) - (S_i - S_{i-1}) and J += (|D| - J) / 16.
/// The clocks need not agree: only differences on the same clock are used.
public struct RFC3550Jitter: Sendable {
    private var lastTransit: Int64?
    /// The smoothed estimate, nanoseconds.
    public private(set) var jitterNanos: Double = 0
    public private(set) var samples = 0

    public init() {}

    /// Adds one packet: its sender timestamp and its arrival time (nanoseconds).
    public mutating func add(sentNanos: UInt64, arrivedNanos: UInt64) {
        let transit = Int64(bitPattern: arrivedNanos &- sentNanos)
        defer {
            lastTransit = transit
            samples += 1
        }
        guard let last = lastTransit else { return }
        let d = Double(abs(transit &- last))
        jitterNanos += (d - jitterNanos) / 16
    }

    public var jitterMs: Double { jitterNanos / 1e6 }
}
