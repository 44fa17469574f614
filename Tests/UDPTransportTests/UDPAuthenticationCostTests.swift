import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed
import Testing
import TransportTestSupport

@testable import UDPTransport

/// What the per-cell tag costs (docs/PERFORMANCE.md, "UDP data-plane authentication"):
/// unpaced udp on loopback, 200 000 x 1 024 bytes, with and without the cell's key,
/// alternating, 3 runs each; prints both medians. A measurement, not a check: it moves
/// 1.2 GB through loopback, so the suite runs it only when asked:
/// `PEERBENCH_MEASURE=1 swift test --skip-build --filter UDPAuthenticationCostTests`.
@Suite(
    "UDP authentication cost", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: ProcessInfo.processInfo.environment["PEERBENCH_MEASURE"] == "1", "a measurement: PEERBENCH_MEASURE=1 runs it"))
struct UDPAuthenticationCostTests {
    func throughput(key: [UInt8]?, payload: Payload) async throws -> Double {
        var cell = makeCell(payload: payload, probes: 1, seconds: 60)
        cell.dataKey = key
        let server = try await UDPPlugin().startServer(cell)
        let m = try await UDPPlugin().runClient(cell, server: server.address)
        try await server.finish()
        #expect(m.status == .ok)
        let bytes = Double(m.delivery?.receivedBytes ?? 0)
        return bytes * 8 / (Double(m.bulkNanos ?? 1) / 1e9) / 1e6
    }

    @Test("throughput with and without the tag, loopback, 1 024-byte messages")
    func costOfTheTag() async throws {
        let payload = Payload(count: 200_000, size: 1_024)
        var plain: [Double] = [], tagged: [Double] = []
        for _ in 0..<3 {
            plain.append(try await throughput(key: nil, payload: payload))
            tagged.append(try await throughput(key: try CellDataKey.random(), payload: payload))
        }
        let median = { (x: [Double]) in x.sorted()[x.count / 2] }
        print(
            "udp tag cost: without \(plain.map { Int($0) }) Mbit/s (median \(Int(median(plain)))), "
                + "with \(tagged.map { Int($0) }) Mbit/s (median \(Int(median(tagged)))): "
                + "\(Int((1 - median(tagged) / median(plain)) * 100)) % less")
        #expect(median(tagged) > 0 && median(plain) > 0)
    }
}
