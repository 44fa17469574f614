import PeerBenchCore
import PeerBenchPlugin

/// One measured test of a field study's CSV file, in the records' words (through a
/// `MeasuredMapping`): an RTT test (`averageRttMs`, `jitterMs`) or a transfer test
/// (`speedMbps`, `lossPercent`, `size`, `count`).
public struct MeasuredTest: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, Codable { case rtt, transfer }

    public var kind: Kind
    /// Record `transport.label`.
    public var transport: String
    /// Record `environment`.
    public var place: String
    public var distanceM: Double
    public var averageRttMs: Double?
    public var jitterMs: Double?
    public var speedMbps: Double?
    public var lossPercent: Double?
    /// Message size in bytes and number of messages of a transfer test.
    public var size: Int?
    public var count: Int?
    /// `file:line`, for messages.
    public var source: String
}
