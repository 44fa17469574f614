import PeerBenchCore
import PeerBenchPlugin
import Testing

/// `rttPayloads` through the real runner over loopback, for any transport that probes
/// pipelined: with `{"counts": [100]}` the count-100 cells probe as before (25 probes),
/// the count-200 cells skip the probe phase and record `rtt_ms` and `rtt_method` null,
/// and every cell transfers.
public func expectOnlyTheListedCellsProbe(_ plugin: any TransportPlugin.Type, label: String) async throws {
    let records = try await runMatrix(
        [plugin], transports: #"[{"plugin": "\#(label)", "label": "\#(label)"}]"#,
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
