import PeerBenchPlugin
import PeerBenchTestbed

/// Why the emulator dropped a packet. The raw values are the keys of `LinkCounters.dropCauses`.
public enum DropCause: String, Sendable, CaseIterable {
    /// The transmit queue was full (packets or bytes), or the packet ring was.
    case queue
    /// Lost on the air (independent, burst or radio-channel loss).
    case loss
    /// The queue overflowed while the channel was off (an AWDL off-channel slot).
    case offChannel = "off_channel"
    /// Sent while the cell's scenario had the link out (an outage).
    case outage
}

/// Counts of one direction, kept by its thread and published in batches.
struct DirectionCounters: Sendable {
    var packets = 0
    var bytes = 0
    var drops: [Int] = Array(repeating: 0, count: DropCause.allCases.count)
    /// Bytes delivered per `LinkDeliverySeries.binNanos`, by planned release time.
    var delivered: [Int] = []
    /// Aggregates (PPDUs) and MPDUs put on the air, and the time frames that found the
    /// transmitter idle waited for an availability window (`FrameAggregation` links only).
    var air = AirCounters()
    var dropsTotal: Int { drops.reduce(0, +) }

    mutating func add(_ o: DirectionCounters) {
        packets += o.packets
        bytes += o.bytes
        for i in drops.indices { drops[i] += o.drops[i] }
        air.aggregates += o.air.aggregates
        air.mpdus += o.air.mpdus
        air.windowWaitNanos += o.air.windowWaitNanos
    }

    /// Counts `bytes` delivered at `t` (nanoseconds on the link clock). Bounded: a
    /// release beyond `maxBins` lands in the last bin.
    @inline(__always)
    mutating func recordDelivery(bytes: Int, at t: UInt64) {
        let i = min(Int(t / LinkDeliverySeries.binNanos), LinkDeliverySeries.maxBins - 1)
        if i >= delivered.count { delivered.append(contentsOf: repeatElement(0, count: i + 1 - delivered.count)) }
        delivered[i] += bytes
    }
}

/// How late the emulator delivered packets compared with their planned release time,
/// in 1 us buckets up to 100 ms.
public struct SchedulingError: Sendable, Equatable {
    static let bucketCount = 100_001
    var buckets: [Int] = Array(repeating: 0, count: bucketCount)
    /// Packets measured.
    public private(set) var count = 0

    mutating func record(lateNanos: UInt64) {
        buckets[Int(min(lateNanos / 1_000, UInt64(Self.bucketCount - 1)))] += 1
        count += 1
    }

    mutating func add(_ o: SchedulingError) {
        for i in o.buckets.indices where o.buckets[i] != 0 { buckets[i] += o.buckets[i] }
        count += o.count
    }

    /// The `q` quantile (0...1) of the lateness, microseconds; nil with no samples.
    public func percentileMicros(_ q: Double) -> Int? {
        guard count > 0 else { return nil }
        let target = Int((Double(count) * q).rounded(.up))
        var seen = 0
        for (i, n) in buckets.enumerated() {
            seen += n
            if seen >= max(target, 1) { return i }
        }
        return buckets.count - 1
    }
}

extension LinkCounters {
    init(up: DirectionCounters, down: DirectionCounters) {
        self.init()
        packetsUp = up.packets
        packetsDown = down.packets
        bytesUp = up.bytes
        bytesDown = down.bytes
        dropsUp = up.dropsTotal
        dropsDown = down.dropsTotal
        for (i, cause) in DropCause.allCases.enumerated() where cause != .outage || up.drops[i] + down.drops[i] > 0 {
            dropCauses[cause.rawValue] = up.drops[i] + down.drops[i]
        }
        delivery = LinkDeliverySeries(up: up.delivered, down: down.delivered)
        if up.air.aggregates + down.air.aggregates > 0 { air = LinkAirCounters(up: up.air, down: down.air) }
    }
}
