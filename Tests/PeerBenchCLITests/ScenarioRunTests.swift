import Foundation
import Testing

/// One short cell per scenario kind, end to end through `peerbench run` over the
/// emulated link: the record's `scenario` object says what happened.
@Suite(.serialized, .enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
struct ScenarioRunTests {
    static let lab = #"{"name": "lab", "link": {"delayMs": 5, "rateMbps": 20, "mtu": 1500}}"#

    func matrix(transports: String, environment: String, distance: String = "1", scenarios: String, count: Int) -> String {
        """
        {"name": "scenario-test", "rttProbes": 5, "cellTimeoutSeconds": 40,
         "transports": \(transports),
         "matrix": {"environments": [\(environment)], "distances": [\(distance)], "scenarios": \(scenarios),
                    "payloads": {"counts": [\(count)], "sizes": [16384]}}}
        """
    }

    /// Runs `text` and returns its records by transport label (and the run's output).
    func run(_ text: String, files: [String: String] = [:]) throws -> [String: [String: Any]] {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        for (name, source) in files { try FileManager.default.copyItem(atPath: source, toPath: d + "/" + name) }
        try CLI.write(text, to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        var out: [String: [String: Any]] = [:]
        for rec in try CLI.records(in: d + "/out") { out[(rec["transport"] as! [String: Any])["label"] as! String] = rec }
        return out
    }

    func scenario(_ r: [String: Any]?) -> [String: Any] { r?["scenario"] as? [String: Any] ?? [:] }

    @Test("outage: plain TCP stalls and recovers; TCP with a 400 ms user timeout dies as configured and is ok")
    func outage() throws {
        let recs = try run(
            matrix(
                transports: #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "tcp", "label": "tcp-ut", "options": {"userTimeoutMs": 400}}]"#,
                environment: Self.lab, scenarios: #"[{"name": "o", "kind": "outage", "atSeconds": 0.8, "durationSeconds": 1.5}]"#, count: 400))
        let tcp = scenario(recs["tcp"])
        #expect(recs["tcp"]?["status"] as? String == "ok")
        #expect(tcp["name"] as? String == "o" && tcp["kind"] as? String == "outage")
        #expect(tcp["survived"] as? Bool == true)
        #expect((tcp["stall_ms"] as? Double ?? 0) >= 1_200, "a 1.5 s outage in the middle of the bulk phase: \(tcp)")
        #expect((tcp["recover_ms"] as? Double).map { $0 >= 0 && $0 < 3_000 } == true, "\(tcp)")
        // Only what was already on the air when the link went (5 ms of 20 Mbit/s is 12.5 kB) arrives during it.
        #expect((tcp["bytes_during_event"] as? Int ?? -1) <= 20_000, "\(tcp)")
        #expect(tcp["detect_ms"] is NSNull)
        let drops = (recs["tcp"]?["extra"] as? [String: Any])?["link_drops"] as? [String: Any]
        #expect((drops?["outage"] as? Int ?? 0) > 0)

        let ut = scenario(recs["tcp-ut"])
        #expect(recs["tcp-ut"]?["status"] as? String == "ok", "dying after 0.4 s of silence is what the settings predict: \(recs["tcp-ut"] ?? [:])")
        #expect(ut["survived"] as? Bool == false)
        let detect = ut["detect_ms"] as? Double ?? -1
        #expect(detect >= 300 && detect <= 1_500, "TCP_USER_TIMEOUT 400 ms is checked at retransmission timeouts: \(ut)")
        #expect(recs["tcp-ut"]?["error"] is String)
    }

    @Test("walk-away beyond range and back: the link dies in between and TCP recovers")
    func walkAway() throws {
        let recs = try run(
            matrix(
                transports: #"[{"plugin": "tcp", "label": "tcp"}]"#, environment: #""forest""#, distance: "5",
                scenarios: #"[{"name": "w", "kind": "walk-away", "speedMps": 15, "to": 60, "back": true}]"#, count: 2_000))
        let r = try #require(recs["tcp"])
        let s = scenario(r)
        // From 5 m (the forest's 10 m is its range since the fitted 11 dB body loss, dead
        // from 0.6 s), the link is below MCS 0 from 1.0 s to 6.5 s (`peerbench validate`), on the link's
        // clock, which starts before the connection is set up. Set-up and the five probes
        // take 0.3-1 s over the calibrated AWDL link, and 32 MB take 4-8 s, so the dead
        // stretch falls in the bulk phase. (A walk at 100 m/s to 300 m, dead from 0.2 s,
        // caught the probes instead: stall 0-100 ms in 3 of 3 runs.) Measured, 3 runs
        // quiet and 3 beside two CPU hogs (with the 4.4 s dead stretch of the 5 dB body
        // loss): stall 4.4-8.3 s, every connection survived; the receiver's keepalive
        // (2 s idle + 5 x 1 s) outlasts the 5.5 s dead stretch.
        #expect(r["status"] as? String == "ok", "\(r)")
        #expect(s["kind"] as? String == "walk-away")
        #expect((s["stall_ms"] as? Double ?? 0) >= 3_000, "\(s)")
        #expect(s["survived"] as? Bool == true)
        #expect(s["recover_ms"] is Double, "the link is back after 6.5 s: \(s)")
        #expect(((r["link"] as? [String: Any])?["drops_up"] as? Int ?? 0) > 0, "60 m of forest is beyond its range")
    }

    @Test("body-block: 60 dB for 0.5 s every 2 s stalls the receiver and the connection survives")
    func bodyBlock() throws {
        // 3 000 x 16 kB: about 3.6 s at the calibrated 137 Mbit/s, so the bulk phase
        // meets one or two blocks. (A block every second, half the time dead, was this
        // test's setting at the 299 Mbit/s of the link before its calibration; at 137
        // Mbit/s the transfer lasts long enough for TCP's back-off to land repeatedly in
        // blocks until the receiver's 2 s keepalive gives up: 3 of 3 runs failed.)
        let recs = try run(
            matrix(
                transports: #"[{"plugin": "tcp", "label": "tcp"}]"#, environment: #""free-field""#, distance: "10",
                scenarios: #"[{"name": "b", "kind": "body-block", "depthDb": 60, "lengthSeconds": 0.5, "periodSeconds": 2}]"#,
                count: 3_000))
        let r = try #require(recs["tcp"])
        let s = scenario(r)
        #expect(r["status"] as? String == "ok", "\(r)")
        #expect(s["kind"] as? String == "body-block" && s["survived"] as? Bool == true)
        #expect((s["stall_ms"] as? Double ?? 0) >= 300, "\(s)")
    }

    @Test("trace: the shipped 12/24 Mbit/s trace caps TCP below its 18 Mbit/s mean")
    func trace() throws {
        let file = CLI.packageRoot + "/Tests/Traces/steps-12-24mbps.trace"
        let recs = try run(
            matrix(
                transports: #"[{"plugin": "tcp", "label": "tcp"}]"#, environment: Self.lab,
                scenarios: #"[{"name": "t", "kind": "trace", "up": "t.trace", "down": "t.trace"}]"#, count: 500),
            files: ["t.trace": file])
        let r = try #require(recs["tcp"])
        #expect(r["status"] as? String == "ok", "\(r)")
        #expect(scenario(r)["kind"] as? String == "trace")
        let mbps = r["throughput_mbps"] as? Double ?? 0
        #expect(mbps > 9 && mbps <= 18.5, "\(mbps) Mbit/s over an 18 Mbit/s (mean) trace")
    }

    @Test("a scenario on --link none is refused before anything runs")
    func refusedOffTheEmulator() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(
            matrix(transports: #"[{"plugin": "tcp"}]"#, environment: Self.lab, scenarios: #"["static", "outage"]"#, count: 10),
            to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out", "--link", "none"])
        #expect(r.status != 0)
        #expect(r.stderr.contains(#"m.json: $.matrix.scenarios[1]: scenario "outage" changes the link during the cell"#), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/out/records.jsonl"))
        let v = try CLI.run(["validate", d + "/m.json"])
        #expect(v.status == 0)
        #expect(v.stdout.contains("lab at 1 m: 0-2 s: as resolved; 2-7 s: nothing crosses either way; from 7 s: as resolved"), "\(v.stdout)")
    }
}
