import PeerBenchPlugin

/// Builds a receiver's `BulkSeries` as bulk data arrives: bytes (and datagrams) per
/// fixed interval from the first arrival.
///
/// The size is bounded whatever the cell's length: when the series would exceed
/// `maxIntervals` entries, the interval doubles and neighbouring entries merge, so a
/// long cell keeps its whole span at a coarser resolution (docs/RECORDS.md). Recording
/// is a subtraction, a division and an add: cheap enough for every recv() or datagram.
public struct BulkSeriesRecorder: Sendable, Equatable {
    /// Largest number of intervals carried; a plugin picks what fits its REPORT.
    public let maxIntervals: Int
    public private(set) var intervalNanos: UInt64
    public private(set) var bytes: [Int] = []
    /// Per-interval datagram counts, kept only for datagram transports.
    public private(set) var datagrams: [Int]?
    /// The first arrival's time (the receiver's clock); nil before any.
    public private(set) var startNanos: UInt64?

    public init(intervalNanos: UInt64 = BulkSeries.defaultIntervalNanos, maxIntervals: Int, countsDatagrams: Bool = false) {
        precondition(intervalNanos > 0 && maxIntervals >= 2)
        self.intervalNanos = intervalNanos
        self.maxIntervals = maxIntervals
        datagrams = countsDatagrams ? [] : nil
    }

    /// Accounts `byteCount` application bytes (one datagram, if datagrams are counted)
    /// that arrived at `nanos` on the receiver's clock. An arrival stamped before the
    /// first one (a coarser clock) counts in the first interval.
    @inline(__always)
    public mutating func record(bytes byteCount: Int, at nanos: UInt64) {
        guard let start = startNanos else {
            startNanos = nanos
            bytes = [byteCount]
            if datagrams != nil { datagrams = [1] }
            return
        }
        let offset = nanos > start ? nanos - start : 0
        var index = Int(clamping: offset / intervalNanos)
        while index >= maxIntervals && intervalNanos < Self.coarsestInterval {
            coarsen()
            index = Int(clamping: offset / intervalNanos)
        }
        // A clock gone wild (hours after the start) lands in the last interval rather
        // than growing the series.
        index = min(index, maxIntervals - 1)
        if index >= bytes.count {
            bytes.append(contentsOf: repeatElement(0, count: index + 1 - bytes.count))
            if datagrams != nil { datagrams!.append(contentsOf: repeatElement(0, count: index + 1 - datagrams!.count)) }
        }
        bytes[index] += byteCount
        if datagrams != nil { datagrams![index] += 1 }
    }

    /// The interval never grows past a day: beyond that the series is meaningless anyway.
    static let coarsestInterval: UInt64 = 86_400_000_000_000

    private mutating func coarsen() {
        intervalNanos *= 2
        bytes = Self.mergePairs(bytes)
        if let d = datagrams { datagrams = Self.mergePairs(d) }
    }

    private static func mergePairs(_ a: [Int]) -> [Int] {
        stride(from: 0, to: a.count, by: 2).map { a[$0] + (($0 + 1 < a.count) ? a[$0 + 1] : 0) }
    }

    /// The series so far; nil when nothing arrived.
    public var series: BulkSeries? {
        startNanos == nil ? nil : BulkSeries(intervalNanos: intervalNanos, bytes: bytes, datagrams: datagrams)
    }
}
