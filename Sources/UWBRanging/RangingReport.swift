import PeerBenchJSON
import PeerBenchPlugin

/// The figures one ranging run yields, as the record's `extra.uwb` carries them
/// (docs/UWB.md documents every field).
struct RangingReport: Sendable {
    var tokenBytes: Int
    var exchangeNanos: UInt64
    /// Token-carrying GATT operations, both ways; nil on the message channel.
    var gattOperations: Int?
    /// Every GATT request/response pair, MTU exchange and execute write included.
    var gattTransactions: Int?
    var configuredRateHz: Double
    var groundTruthMeters: Double
    /// Time from `run` to the first update with a distance, nanoseconds.
    var firstRangeNanos: UInt64?
    var updates: [NearbyObject] = []
    var removalReason: NearbyObject.RemovalReason?

    init(tokenBytes: Int, exchangeNanos: UInt64, configuredRateHz: Double, groundTruthMeters: Double) {
        self.tokenBytes = tokenBytes
        self.exchangeNanos = exchangeNanos
        self.configuredRateHz = configuredRateHz
        self.groundTruthMeters = groundTruthMeters
    }

    /// Updates per second between the first and the last update; nil with fewer than two.
    var achievedRateHz: Double? {
        guard updates.count >= 2, let a = updates.first?.timestamp, let b = updates.last?.timestamp, b > a else { return nil }
        return Double(updates.count - 1) / (Double(b - a) / 1e9)
    }

    /// Fraction of updates with a distance; nil without updates.
    var distanceAvailability: Double? {
        updates.isEmpty ? nil : Double(updates.count { $0.distance != nil }) / Double(updates.count)
    }

    var directionAvailability: Double? {
        updates.isEmpty ? nil : Double(updates.count { $0.direction != nil }) / Double(updates.count)
    }

    /// Signed errors (measured − true), metres.
    var distanceErrors: [Double] { updates.compactMap { $0.distance.map { Double($0) - groundTruthMeters } } }

    /// Mean and standard deviation of the signed error, and the 95th percentile of its magnitude.
    var errorSummary: (mean: Double, stddev: Double, p95: Double)? {
        let e = distanceErrors
        guard !e.isEmpty else { return nil }
        let mean = e.reduce(0, +) / Double(e.count)
        let variance = e.count > 1 ? e.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(e.count - 1) : 0
        let magnitudes = e.map(abs).sorted()
        // Nearest-rank percentile.
        let rank = max(1, Int((0.95 * Double(magnitudes.count)).rounded(.up)))
        return (mean, variance.squareRoot(), magnitudes[rank - 1])
    }

    /// Every update as a raw sample (samples.jsonl): time since `runAt` (when the
    /// session started running), distance, signed error against the ground truth, and
    /// whether a direction came with it. 41 bytes per update in memory, about 90 as JSON.
    func samples(since runAt: UInt64) -> [RangingUpdateSample] {
        updates.map { u in
            RangingUpdateSample(
                tNanos: u.timestamp > runAt ? u.timestamp - runAt : 0, distanceM: u.distance.map(Double.init),
                errorM: u.distance.map { Double($0) - groundTruthMeters }, directionAvailable: u.direction != nil)
        }
    }

    var json: JSONValue {
        var o = JSONObject()
        o["token_bytes"] = JSONValue(tokenBytes)
        o["exchange_ms"] = .number(Double(exchangeNanos) / 1e6)
        o["gatt_operations"] = JSONValue(gattOperations)
        o["gatt_transactions"] = JSONValue(gattTransactions)
        o["first_range_ms"] = JSONValue(firstRangeNanos.map { Double($0) / 1e6 })
        o["configured_rate_hz"] = .number(configuredRateHz)
        o["update_rate_hz"] = JSONValue(achievedRateHz)
        o["updates"] = JSONValue(updates.count)
        o["distance_availability"] = JSONValue(distanceAvailability)
        o["direction_availability"] = JSONValue(directionAvailability)
        o["distance_error_m"] = errorSummary.map { ["mean": .number($0.mean), "stddev": .number($0.stddev), "p95": .number($0.p95)] } ?? .null
        o["removal_reason"] = JSONValue(removalReason?.rawValue)
        return .object(o)
    }
}
