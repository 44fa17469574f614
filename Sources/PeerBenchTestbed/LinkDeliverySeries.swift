import PeerBenchPlugin

/// Bytes the link emulator delivered each way per 10 ms, on the link's clock (bin 0
/// starts when the emulator starts for the cell). IP bytes, so headers and
/// retransmissions count. The runner measures a scenario's recovery from it.
public struct LinkDeliverySeries: Sendable, Equatable {
    /// Width of a bin: 10 ms.
    public static let binNanos: UInt64 = 10_000_000
    /// Bins kept per direction (one hour); later deliveries count in the last.
    public static let maxBins = 360_000
    /// Client to server.
    public var up: [Int]
    /// Server to client.
    public var down: [Int]

    public init(up: [Int], down: [Int]) {
        self.up = up
        self.down = down
    }
}
