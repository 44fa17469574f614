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
        let series = try #require(s.series.series)
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
}
