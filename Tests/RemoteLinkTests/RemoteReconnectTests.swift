import Foundation
import LinkEmulation
import PeerBenchCore
import Testing

/// `reconnect` over `--link remote`: serve in the emulated link's server namespace, run
/// in its client namespace, and a 3 s outage cut into the middle of the bulk phase by
/// restarting the emulator with an outage from its start. serve's tcp server keeps the
/// client's count across its connections, so the transfer completes once; a remote
/// cell has no scenario object, so `extra.reconnect` is where the reconnect shows.
@Suite(.serialized) struct RemoteReconnectTests {
    @Test func aTCPCellOverServeSurvivesAnOutageByReconnecting() async throws {
        var params = EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500)
        let rig = try EmulatedServeRig(params, port: 47_820)
        defer { rig.remove() }
        // 3 000 x 16 KiB at 50 Mbit/s: about 8 s of bulk.
        let matrix = try rig.write(
            RemoteRig.matrix(
                transports: #"[{"plugin": "tcp", "label": "tcp-rc", "options": {"userTimeoutMs": 1000, "reconnect": true}}]"#,
                count: 3_000, size: 16_384, timeout: 40, probes: 5
            ))
        let run = try rig.startRun(matrix)
        // Once 10 MB crossed (the bulk is under way), the link goes dead for 3 s.
        var waited = 0
        while (rig.testbed.counters()?.bytesUp ?? 0) < 10_000_000 && waited < 3_000 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(waited < 3_000, "the bulk phase never got going: \(rig.serve.stderr)")
        var outage = ScenarioTimeline()
        outage.outages = [0..<3_000_000_000]
        params.scenario = outage
        try rig.testbed.configure(params, seed: 2)
        #expect(run.wait(seconds: 90) == 0, "run: \(run.stderr)\nserve: \(rig.serve.stderr)")
        let r = try #require(try rig.records().first)
        let d = r["delivery"] as? [String: Any] ?? [:]
        #expect(r["status"] as? String == "ok", "\(r["error"] ?? "")")
        #expect((r["link"] as? [String: Any])?["mode"] as? String == "remote")
        #expect(d["received_messages"] as? Int == 3_000 && d["duplicated"] as? Int == 0, "every message once: \(d)")
        let reconnect = (r["extra"] as? [String: Any])?["reconnect"] as? [String: Any] ?? [:]
        #expect((reconnect["count"] as? Int ?? 0) >= 1, "the 1 s user timeout ends the connection in a 3 s outage: \(r["extra"] ?? "")")
        // From noticing the loss to RESUMED: the rest of the outage (at most 2 s) plus one slot (at most 2 s).
        #expect((reconnect["lost_to_resumed_ms"] as? [Double])?.allSatisfy { $0 > 0 && $0 < 4_500 } == true, "\(reconnect)")
    }
}
