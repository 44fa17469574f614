import Foundation
import LinkEmulation
import PeerBenchCore
import Testing

/// Workloads over `--link remote` (docs/WORKLOADS.md): serve in the emulated link's
/// server namespace (20 ms each way, 50 Mbit/s), run in its client namespace. serve
/// learns each cell's workload from CELL_REQUEST, checks it against its plugin, and
/// its tcp, tls, quic and udp servers (udp's datagrams authenticated) answer the
/// workload as the local ones do.
@Suite(.serialized) struct RemoteWorkloadTests {
    @Test func downloadTransactionsAndFramesRunAgainstServe() async throws {
        let rig = try EmulatedServeRig(EmulatorParameters(delayNanos: 20_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), port: 47_840)
        defer { rig.remove() }
        let workloads = #"""
            ["download", {"name": "rpc", "kind": "request-response", "requests": 20, "requestBytes": 100, "responseBytes": 1000},
             {"name": "voice", "kind": "isochronous", "frameBytes": 160, "periodMs": 20, "durationSeconds": 1, "direction": "bidir"}]
            """#
        let matrix = try rig.write(
            RemoteRig.matrix(
                transports: #"""
                    [{"plugin": "tcp", "options": {"noDelay": true}}, {"plugin": "tls", "options": {"noDelay": true}},
                     {"plugin": "quic"}, {"plugin": "udp", "options": {"rateMbps": 30}}]
                    """#,
                count: 200, size: 16_384, timeout: 30, probes: 3, workloads: workloads
            ))
        let run = try rig.startRun(matrix)
        #expect(run.wait(seconds: 120) == 0, "run: \(run.stderr)\nserve: \(rig.serve.stderr)")
        let records = try rig.records()
        #expect(records.count == 12)
        for r in records {
            let label = (r["transport"] as? [String: Any])?["label"] as? String ?? "?"
            let name = (r["workload"] as? [String: Any])?["name"] as? String ?? "?"
            #expect(r["status"] as? String == "ok", "\(label) \(name): \(r["error"] ?? "")")
            #expect((r["link"] as? [String: Any])?["mode"] as? String == "remote")
            switch name {
            case "download":
                let down = ((r["delivery_by_direction"] as? [String: Any])?["down"] as? [String: Any]) ?? [:]
                #expect(down["received_bytes"] as? Int == 200 * 16_384, "\(label): \(down)")
            case "rpc":
                let p50 = ((r["request_response_ms"] as? [String: Any])?["p50"] as? Double) ?? 0
                // One 40 ms round trip a transaction, plus 1 100 bytes at 50 Mbit/s and the
                // hosts' stacks; the bound is half-way to two (80 ms). Over 5 ms each way
                // (until issue 42) tls took 16 ms, over 1.5 round trips, beside two busy
                // loops with the timing suites four at a time: a 40 ms round trip keeps
                // the count of round trips apart from the host's scheduling delays.
                #expect(p50 >= 40 && p50 < 60, "\(label): \(p50) ms")
            default:
                let f = r["frames"] as? [String: Any] ?? [:]
                #expect(f["sent"] as? Int == 100 && f["received"] as? Int == 100 && f["late"] as? Int == 0, "\(label): \(f)")
            }
        }
    }
}
