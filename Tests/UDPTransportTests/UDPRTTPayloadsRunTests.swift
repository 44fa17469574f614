import PeerBenchPlugin
import TransportTestSupport
import Testing
import UDPTransport

/// `rttPayloads` through the real runner over loopback: the cells it lists probe as
/// before, the others skip the probe phase and record no RTT, and both transfer.
@Suite("rttPayloads in a UDP run", .serialized, .timeLimit(.minutes(3)))
struct UDPRTTPayloadsRunTests {
    @Test("pipelined probes in the count-100 cells only; the count-200 cells record rtt_ms and rtt_method null")
    func onlyTheListedCellsProbe() async throws {
        let records = try await runMatrix([UDPPlugin.self], transports: #"[{"plugin": "udp", "label": "udp"}]"#,
                                          counts: "[100, 200]", sizes: "[128, 512]", probes: 25, rttMethod: .pipelined,
                                          extra: #""rttPayloads": {"counts": [100]}, "#)
        #expect(records.count == 4)
        for r in records {
            let count = try #require(r["payload"]?["count"]?.intValue)
            let what = "\(r["transport"]?["label"] ?? .null) \(count)x\(r["payload"]?["size"] ?? .null)"
            #expect(r["status"] == "ok", "\(what): \(r["error"] ?? .null)")
            // The transfer runs in every cell.
            #expect(r["delivery"]?["received_messages"]?.intValue == count, "\(what)")
            #expect((r["throughput_mbps"]?.doubleValue ?? 0) > 0, "\(what)")
            if count == 100 {
                #expect(r["rtt_ms"]?["count"] == 25, "\(what): \(r["rtt_ms"] ?? .null)")
                #expect(r["rtt_method"] == "pipelined", "\(what)")
            } else {
                #expect(r["rtt_ms"] == .null, "\(what): \(r["rtt_ms"] ?? .null)")
                #expect(r["rtt_method"] == .null, "\(what)")
                #expect(r["extra"]?["rtt_pipelined"] == nil || r["extra"]?["rtt_pipelined"] == .null, "\(what)")
            }
        }
    }
}
