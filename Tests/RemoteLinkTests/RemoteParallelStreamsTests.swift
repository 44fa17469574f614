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
        let testbed = try EmulatedTestbed(initialMTU: 1_500)
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), seed: 1)
        let (clientNS, serverNS) = (try #require(endpoints.client.namespace), try #require(endpoints.server.namespace))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pbr-ps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = dir + "/key.psk"
        #expect(try PeerbenchProcess(["psk", "new", key], in: nil).wait(seconds: 30) == 0)
        let peer = "\(endpoints.server.address):47860"
        let serve = try PeerbenchProcess(["serve", "--listen", peer, "--psk-file", key, "--data-ports", "47861-47870"], in: serverNS)
        defer {
            serve.kill(SIGKILL)
            serve.wait(seconds: 5)
        }
        #expect(serve.waitFor("listening on", seconds: 30), "\(serve.stderr)")
        let workloads = #"[{"name": "p4", "kind": "bulk", "direction": "bidir", "streams": 4}]"#
        let matrix = dir + "/m.json"
        try Data(
            RemoteRig.matrix(
                transports: #"[{"plugin": "quic"}, {"plugin": "udp", "options": {"rateMbps": 40}}]"#,
                count: 202, size: 16_384, timeout: 30, probes: 3, workloads: workloads
            ).utf8
        )
        .write(to: URL(fileURLWithPath: matrix))
        let run = try PeerbenchProcess(["run", matrix, "--out", dir + "/out", "--link", "remote", "--peer", peer, "--psk-file", key], in: clientNS)
        #expect(run.wait(seconds: 120) == 0, "run: \(run.stderr)\nserve: \(serve.stderr)")
        let text = (try? String(contentsOfFile: dir + "/out/records.jsonl", encoding: .utf8)) ?? ""
        let records = try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
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
