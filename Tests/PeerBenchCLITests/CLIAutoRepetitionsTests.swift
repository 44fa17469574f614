import Foundation
import Testing

/// `"repetitions": "auto[:MAX]"` / `run --repetitions auto[:MAX]`: each scenario repeats
/// until its intervals are narrow enough, or MAX. Real runs: a quiet emulated link
/// settles at the minimum of 6, loopback's noisy small transfers run to MAX.
@Suite(.serialized) struct CLIAutoRepetitionsTests {
    func manifest(_ dir: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))) as! [String: Any]
    }

    func matrix(_ extra: String, environment: String, sizes: String) -> String {
        """
        {"name": "auto", \(extra) "rttProbes": 10, "cellTimeoutSeconds": 20, "seed": 1,
         "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}],
         "matrix": {"environments": [\(environment)], "distances": [1], "payloads": {"counts": [50], "sizes": \(sizes)}}}
        """
    }

    /// 25 ms one way at 20 Mbit/s, judged on RTT p50 and loss, the figures the emulator
    /// decides: a round trip of 50 ms planned, no loss. Judged on throughput too, over
    /// 5 ms (issue 42): 50 x 1 KiB moved at 12.6-12.8 Mbit/s, but with the timing suites
    /// four at a time one udp cell in six ran at 8.3 and one RTT p50 was 16.1 ms against
    /// 10.6-11.4, and the 95 % interval of the median of 6 (their smallest to largest)
    /// spanned 34 %: the scenario ran 9 repetitions, not 6. A stall of that size (5.4 ms)
    /// is 11 % of a 50 ms round trip; 25 % leaves room for one twice as long, so the
    /// scenario settles at the first judgement, 6 repetitions, and the other 6 rounds of
    /// MAX 12 are skipped. (A loopback run of small transfers, noisy by nature, runs to
    /// MAX in the next test, on compare's default metrics, throughput among them.)
    @Test(.enabled(if: CLIRunnerDeathTests.canEmulate, "needs root and /dev/net/tun"))
    func aQuietLinkStopsAtTheMinimum() throws {
        let d = CLI.tempDir()
        try CLI.write(
            matrix(
                #""repetitions": "auto:12", "repetitionPrecision": 0.25, "repetitionMetrics": ["rtt_p50_ms", "loss_ratio"],"#,
                environment: #"{"name": "lab", "link": {"delayMs": 25, "rateMbps": 20, "mtu": 1500}}"#, sizes: "[1024]"), to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "peerbench: 24 cells at most (auto repetitions: 6-12 repetitions per scenario until every interval is within 25.0 % of its median)"),
            "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "auto repetitions: 1 of 1 scenarios precise after 6 repetitions, 0 ran to 12 (manifest auto_repetitions); 12 cells were not needed"),
            "\(r.stderr)")
        #expect(try CLI.records(in: d + "/out").count == 12)
        let auto = try #require(try manifest(d + "/out")["auto_repetitions"] as? [String: Any])
        #expect(auto["min"] as? Int == 6 && auto["max"] as? Int == 12 && auto["precision"] as? Double == 0.25)
        let s = try #require((auto["scenarios"] as? [[String: Any]])?.first)
        #expect(s["scenario"] as? String == "lab · 1 m · 50x1024 B" && s["repetitions"] as? Int == 6 && s["stopped"] as? String == "precise", "\(s)")
        // Resumed, the settled scenario stays settled: nothing runs.
        let again = try CLI.run(["run", "--resume", d + "/out"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try CLI.records(in: d + "/out").count == 12)
    }

    /// 50 x 128 B over loopback: the throughput's interval is several times its median
    /// (measured: 0.6-5.3 x), never within 1 %, so both scenarios run to MAX.
    @Test func aNoisyLinkRunsToMax() throws {
        let d = CLI.tempDir()
        try CLI.write(matrix(#""repetitions": 3, "#, environment: #""forest""#, sizes: "[128, 4096]"), to: d + "/m.json")
        let r = try CLI.run(["run", d + "/m.json", "--out", d + "/out", "--link", "none", "--repetitions", "auto:7"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("auto repetitions: 0 of 2 scenarios precise, 2 ran to 7"), "\(r.stderr)")
        #expect(try CLI.records(in: d + "/out").count == 28, "2 scenarios x 2 transports x 7")
        let auto = try #require(try manifest(d + "/out")["auto_repetitions"] as? [String: Any])
        #expect(
            (auto["scenarios"] as? [[String: Any]])?.allSatisfy { $0["stopped"] as? String == "max" && $0["repetitions"] as? Int == 7 } == true,
            "\(auto)")
        #expect(try manifest(d + "/out")["repetitions"] as? Int == 7)
        // The run is auto:7; resuming it with another count is refused, naming both.
        let other = try CLI.run(["run", "--resume", d + "/out", "--repetitions", "5"])
        #expect(other.status == 2 && other.stderr.contains("--repetitions: 5 differs from the run being resumed (auto:7)"), "\(other.stderr)")
        // A fixed count has no auto_repetitions.
        let fixed = try CLI.run(["run", d + "/m.json", "--out", d + "/fixed", "--link", "none", "--repetitions", "1"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        let fixedManifest = try manifest(d + "/fixed")
        #expect(fixedManifest["auto_repetitions"] is NSNull)
    }

    @Test func badAutoSettingsAreNamedByPathOrOption() throws {
        let d = CLI.tempDir()
        try CLI.write(
            matrix(
                #""repetitions": "auto:4", "repetitionPrecision": 2, "repetitionMetrics": ["rtt_p95_ms"],"#, environment: #""forest""#, sizes: "[128]"
            ),
            to: d + "/m.json")
        let v = try CLI.run(["validate", d + "/m.json"])
        #expect(v.status == 2)
        for message in [
            #"$.repetitions: "auto:4": MAX after "auto:" must be a whole number from 6"#,
            "$.repetitionPrecision: expected the widest 95 % interval accepted, as a fraction of the median above 0 and below 1 (0.05 is 5 %), got 2",
            #"$.repetitionMetrics[0]: unknown metric "rtt_p95_ms" (known: throughput_mbps, rtt_p50_ms"#,
        ] {
            #expect(v.stderr.contains(message), "\(v.stderr)")
        }
        try CLI.write(matrix(#""repetitions": 4, "repetitionPrecision": 0.1,"#, environment: #""forest""#, sizes: "[128]"), to: d + "/f.json")
        let fixed = try CLI.run(["validate", d + "/f.json"])
        #expect(fixed.status == 2 && fixed.stderr.contains(#"$.repetitionPrecision: applies to "repetitions": "auto""#), "\(fixed.stderr)")
        let flag = try CLI.run(["run", d + "/f.json", "--out", d + "/o", "--repetitions", "auto:3"])
        #expect(
            flag.status == 64 && flag.stderr.contains(#"--repetitions "auto:3": MAX after "auto:" must be a whole number from 6"#), "\(flag.stderr)")
        try CLI.write(matrix(#""repetitions": "auto:8", "repetitionPrecision": 0.02,"#, environment: #""forest""#, sizes: "[128]"), to: d + "/a.json")
        let ok = try CLI.run(["validate", d + "/a.json"])
        #expect(
            ok.stdout.contains(
                "cells: 12 to 16 (2 per repetition x auto repetitions: 6-8 repetitions per scenario until every interval is within 2.0 % of its median)"
            ), "\(ok.stdout)")
    }
}
