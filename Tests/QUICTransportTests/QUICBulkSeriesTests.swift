import PeerBenchCore
import PeerBenchPlugin
import Testing

@testable import QUICTransport

/// The receiver-side bulk series of the quic plugin (SERIES frame, docs/protocol/quic.md).
@Suite(.timeLimit(.minutes(2))) struct QUICBulkSeriesTests {
    @Test("a loopback cell: the series sums to the bytes received, 100 ms intervals spanning the server's first to last byte")
    func loopbackSeries() async throws {
        let plugin = try makePlugin()
        // 48 MB: several 100 ms intervals even on a fast loopback.
        let cell = CellContext.loopback(payload: Payload(count: 3_000, size: 16_384), rttProbes: 3)
        let server = try await plugin.startServer(cell)
        let m = try await withTimeout(60) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.status == .ok)
        let series = try #require(m.bulkSeries)
        #expect(series.intervalNanos == 100_000_000)
        #expect(series.datagrams == nil)
        #expect(series.bytes.reduce(0, +) == m.delivery?.receivedBytes)
        #expect(m.delivery?.receivedBytes == 49_152_000)
        // The series starts at the first bulk byte, so its last entry is the interval
        // holding the last byte: exactly ⌊receive span / 100 ms⌋ + 1 entries.
        let receiveMs = try #require(m.extra["quic"]?["server_receive_ms"]?.doubleValue)
        #expect(series.bytes.count == Int(receiveMs / 100) + 1, "\(series.bytes) over \(receiveMs) ms")
        #expect(series.bytes.last.map { $0 > 0 } == true)
    }

    @Test("no bulk phase: an empty SERIES, so no series")
    func noBulk() async throws {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: nil, rttProbes: 2)
        let server = try await plugin.startServer(cell)
        let m = try await withTimeout(30) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.bulkSeries == nil)
    }

    @Test("SERIES round-trips through the frame parser; a server's parser refuses it at its header")
    func framing() throws {
        let series = BulkSeries(intervalNanos: 200_000_000, bytes: [5, 0, 1 << 40])
        let bytes = FrameEncoder.encode(.series(series))
        #expect(bytes.count == 5 + 12 + 24)
        var got: [ControlFrame] = []
        var client = FrameParser(acceptsSeries: true)
        // One byte at a time, as QUIC may deliver it.
        for b in bytes {
            try [b].withUnsafeBytes { try client.feed($0, onData: { _, _ in }, onControl: { got.append($0) }) }
        }
        #expect(got == [.series(series)])
        var empty: [ControlFrame] = []
        try FrameEncoder.encode(.series(nil)).withUnsafeBytes { try client.feed($0, onData: { _, _ in }, onControl: { empty.append($0) }) }
        #expect(empty == [.series(nil)])
        var server = FrameParser()
        #expect(throws: FramingError.self) {
            try Array(bytes.prefix(5)).withUnsafeBytes { try server.feed($0, onData: { _, _ in }, onControl: { _ in }) }
        }
        // More entries than the limit: refused from the header, before any body arrives.
        var big = FrameParser(acceptsSeries: true)
        let huge = FrameEncoder.header(.series, length: UInt32(SeriesBody.maxSize + 8))
        #expect(throws: FramingError.self) {
            try huge.withUnsafeBytes { try big.feed($0, onData: { _, _ in }, onControl: { _ in }) }
        }
    }
}
