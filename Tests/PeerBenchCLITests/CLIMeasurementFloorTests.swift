import Foundation
import Testing

/// Every run's manifest carries the measurement floor: the clock, each transport's
/// loopback RTT (measured before the first cell), and the emulator's release error
/// (null on `--link none`).
@Suite(.serialized) struct CLIMeasurementFloorTests {
    @Test func theManifestCarriesTheFloorOfEveryTransport() throws {
        let dir = CLI.tempDir()
        try CLI.write(
            """
            {"name": "floor", "rttProbes": 5, "cellTimeoutSeconds": 20, "seed": 3,
             "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}],
             "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [10], "sizes": [128]}}}
            """, to: dir + "/floor.json")
        let r = try CLI.run(["run", dir + "/floor.json", "--out", dir + "/out", "--link", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json"))) as! [String: Any]
        let floor = try #require(manifest["measurement_floor"] as? [String: Any])
        let clock = try #require(floor["clock"] as? [String: Any])
        #expect(clock["resolution_ns"] as? Int == 1, "Linux CLOCK_MONOTONIC is a nanosecond clock")
        let delta = try #require(clock["read_delta_min_ns"] as? Int)
        #expect(delta > 0 && delta < 10_000, "two clock reads \(delta) ns apart")
        let rtt = try #require(floor["loopback_rtt"] as? [[String: Any]])
        #expect(rtt.map { $0["label"] as? String } == ["tcp", "udp"])
        for t in rtt {
            #expect(t["error"] is NSNull, "\(t)")
            #expect(t["probes"] as? Int == 200)
            let p50 = try #require(t["p50_ms"] as? Double), p99 = try #require(t["p99_ms"] as? Double)
            #expect(p50 > 0 && p50 < 5 && p99 >= p50, "\(t)")
        }
        #expect(floor["emulator_release_error"] is NSNull)
    }

    @Test func aPluginThatCrashesCostsItsFloorEntryNotTheRun() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            """
            {"name": "floor-crash", "rttProbes": 5, "cellTimeoutSeconds": 20, "seed": 3,
             "transports": [{"plugin": "misbehaving", "label": "segv", "options": {"behavior": "segfault"}}, {"plugin": "tcp", "label": "tcp"}],
             "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [10], "sizes": [128]}}}
            """, to: dir + "/m.json")
        let r = try await CLIUnattendedTests.Running(["run", dir + "/m.json", "--out", dir + "/out", "--link", "none"]).wait()
        #expect(r.status == 1, "the segfaulting cell is recorded as failed, the tcp cell ok: \(r.stderr)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json"))) as! [String: Any]
        let rtt = try #require((manifest["measurement_floor"] as? [String: Any])?["loopback_rtt"] as? [[String: Any]])
        #expect(rtt.count == 2)
        #expect((rtt[0]["error"] as? String)?.contains("signal") == true, "\(rtt[0])")
        #expect(rtt[1]["error"] is NSNull && (rtt[1]["p50_ms"] as? Double ?? 0) > 0, "\(rtt[1])")
    }
}
