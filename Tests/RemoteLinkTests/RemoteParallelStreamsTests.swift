import Foundation
import LinkEmulation
import PeerBenchCore
import Testing

/// A bulk over 4 parallel streams over `--link remote` (docs/WORKLOADS.md): quic's 4
/// streams of one connection and udp's 4 socket pairs against serve in the emulated
/// link's server namespace (5 ms each way, 50 Mbit/s). serve's udp server binds a data
/// port per flow and names the others in SERVER_READY's hello (`flow_ports`); every
/// flow's datagrams are authenticated as the one flow's are.
@Suite(.serialized) struct RemoteParallelStreamsTests {
    @Test func quicStreamsAndUDPFlowsRunAgainstServe() async throws {
        let rig = try EmulatedServeRig(EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), port: 47_860)
        defer { rig.remove() }
        let workloads = #"[{"name": "p4", "kind": "bulk", "direction": "bidir", "streams": 4}]"#
        let matrix = try rig.write(
            RemoteRig.matrix(
                transports: #"[{"plugin": "quic"}, {"plugin": "udp", "options": {"rateMbps": 40}}]"#,
                count: 202, size: 16_384, timeout: 30, probes: 3, workloads: workloads
            ))
        let run = try rig.startRun(matrix)
        #expect(run.wait(seconds: 120) == 0, "run: \(run.stderr)\nserve: \(rig.serve.stderr)")
        let records = try rig.records()
        #expect(records.count == 2)
        for r in records {
            let label = (r["transport"] as? [String: Any])?["label"] as? String ?? "?"
            #expect(r["status"] as? String == "ok", "\(label): \(r["error"] ?? "")")
            let d = r["delivery"] as? [String: Any] ?? [:]
            #expect(d["received_bytes"] as? Int == 2 * 202 * 16_384, "\(label): \(d)")
            let streams = (r["extra"] as? [String: Any])?["streams"] as? [[String: Any]] ?? []
            #expect(streams.count == 4 && streams.allSatisfy { ($0["throughput_mbps"] as? Double ?? 0) > 0 }, "\(label): \(streams)")
            if label == "udp" {
                #expect(Set(streams.compactMap { $0["server_port"] as? Int }).count == 4, "\(label): \(streams)")
                #expect(streams.allSatisfy { (47_861...47_870).contains($0["server_port"] as? Int ?? 0) }, "serve's data ports: \(streams)")
            }
            print(
                "remote \(label) 4 flows bidir: total \(r["throughput_mbps"] ?? "?") Mbit/s, \(r["throughput_by_direction_mbps"] ?? "?"), each \(streams.map { $0["throughput_mbps"] ?? "?" })"
            )
        }
    }
}
