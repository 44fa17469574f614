import PeerBenchCore
import PeerBenchPlugin
import Testing

@testable import UDPTransport

/// The series in a UDP REPORT: encoded after the seven counters, decoded by the client;
/// the receiver's stats count only what they count as received.
@Suite struct UDPReportSeriesTests {
    @Test func duplicatesAndOutOfRangeDoNotEnterTheSeries() throws {
        var s = UDPReceiverStats(expected: 4)
        s.record(sequence: 0, payloadBytes: 100, sentNanos: 0, arrivedNanos: 1_000)
        s.record(sequence: 0, payloadBytes: 100, sentNanos: 0, arrivedNanos: 2_000)  // duplicate
        s.record(sequence: 9, payloadBytes: 100, sentNanos: 0, arrivedNanos: 3_000)  // out of range
        s.record(sequence: 2, payloadBytes: 100, sentNanos: 0, arrivedNanos: 250_001_000)
        let series = try #require(s.count.series?.series)
        #expect(series == BulkSeries(bytes: [100, 0, 100], datagrams: [1, 0, 1]))
        #expect(series.bytes.reduce(0, +) == s.receivedBytes)
    }

    @Test func reportFieldsRoundTripAndRejectBadLengths() throws {
        let series = BulkSeries(intervalNanos: 200_000_000, bytes: [1_200, 2_400], datagrams: [1, 2])
        let counters: [UInt64] = [3, 3_600, 0, 0, 0, 0, 0]
        let fields = counters + UDPReportSeries.fields(series)
        #expect(fields.count == 7 + 2 + 4)
        #expect(UDPReportSeries.decode(fields) == series)
        #expect(UDPReportSeries.decode(Array(fields.dropLast())) == nil)
        #expect(UDPReportSeries.decode(counters + UDPReportSeries.fields(nil)) == nil)
        #expect(UDPReportSeries.decode(counters) == nil, "a version without the series")
        // Worst case on the wire: 24-byte header + 8 bytes per field.
        #expect(24 + 8 * (9 + 2 * UDPReceiverStats.maxSeriesIntervals) == 8_288)
    }

    /// The receiver's span: first to last counted arrival on the monotonic clock;
    /// duplicates and out-of-range datagrams do not move it.
    @Test func theSpanRunsFromTheFirstToTheLastCountedArrival() throws {
        var s = UDPReceiverStats(expected: 3)
        #expect(s.spanNanos == 0)
        s.record(sequence: 1, payloadBytes: 10, sentNanos: 0, arrivedNanos: 5, monotonicArrival: 1_000)
        #expect(s.spanNanos == 0, "one datagram has no span")
        s.record(sequence: 0, payloadBytes: 10, sentNanos: 0, arrivedNanos: 6, monotonicArrival: 4_000)
        s.record(sequence: 0, payloadBytes: 10, sentNanos: 0, arrivedNanos: 7, monotonicArrival: 9_000)  // duplicate
        s.record(sequence: 7, payloadBytes: 10, sentNanos: 0, arrivedNanos: 8, monotonicArrival: 9_500)  // out of range
        #expect(s.spanNanos == 3_000)
        s.record(sequence: 2, payloadBytes: 10, sentNanos: 0, arrivedNanos: 9, monotonicArrival: 11_000)
        #expect(s.spanNanos == 10_000)
    }

    @Test func theSpanFollowsTheSeriesOnlyWhenAskedFor() throws {
        let series = BulkSeries(intervalNanos: 100_000_000, bytes: [1_000], datagrams: [1])
        let counters: [UInt64] = [1, 1_000, 0, 0, 0, 0, 0]
        let old = counters + UDPReportSeries.fields(series)
        #expect(UDPReportSeries.span(old) == nil, "a server before the span")
        let new = old + [42_000]
        #expect(UDPReportSeries.span(new) == 42_000)
        #expect(UDPReportSeries.decode(new) == series, "the series reads the same with the span behind it")
        #expect(UDPReportSeries.span(counters + UDPReportSeries.fields(nil) + [0]) == 0)
        // An authenticated cell's REPORT has `unauthenticated` behind the span; no more.
        #expect(UDPReportSeries.span(new + [1]) == 42_000 && UDPReportSeries.unauthenticated(new + [1]) == 1)
        #expect(UDPReportSeries.unauthenticated(new) == nil)
        #expect(UDPReportSeries.span(new + [1, 2]) == nil && UDPReportSeries.unauthenticated(new + [1, 2]) == nil)
    }
}
