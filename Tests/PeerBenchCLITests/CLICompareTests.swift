import Foundation
import Testing

/// `peerbench compare`: formats, mixed runs and baselines, on run folders written here
/// with the records and manifest a run leaves (the statistics themselves: PeerBenchCoreTests).
@Suite struct CLICompareTests {
    /// The manifest of a real one-cell run, for the folders below to carry.
    static func templateManifest() throws -> [String: Any] {
        let d = CLI.tempDir()
        try CLI.write(
            #"{"name":"one","repetitions":1,"rttProbes":3,"cellTimeoutSeconds":20,"seed":1,"transports":[{"plugin":"tcp","label":"tcp"}],"matrix":{"environments":["forest"],"distances":[10],"payloads":{"counts":[10],"sizes":[128]}}}"#,
            to: d + "/one.json")
        let r = try CLI.run(["run", d + "/one.json", "--out", d + "/out", "--link", "none"])
        guard r.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: ["run": r.stderr]) }
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: d + "/out/manifest.json"))) as! [String: Any]
    }

    /// A run folder: manifest.json plus one record per (label, repetition, throughput),
    /// in every environment x distance x payload given.
    static func runFolder(
        _ dir: String, hash: String = "h1", mode: String = "none", environments: [String] = ["forest"],
        distances: [Int] = [10], sizes: [Int] = [128], rows: [(label: String, mbps: [Double])]
    ) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var manifest = try templateManifest()
        manifest["run_id"] = dir
        manifest["matrix_hash"] = hash
        manifest["link_mode"] = mode
        var matrix = manifest["matrix"] as! [String: Any], dims = matrix["matrix"] as! [String: Any]
        dims["environments"] = environments
        matrix["matrix"] = dims
        manifest["matrix"] = matrix
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
        var lines: [String] = []
        let sites = environments.flatMap { e in distances.flatMap { d in sizes.map { (env: e, distance: d, size: $0) } } }
        for (env, distance, size) in sites {
            for row in rows {
                for (i, v) in row.mbps.enumerated() {
                    let link: [String: Any] = [
                        "mode": mode, "delay_ms": NSNull(), "jitter_ms": NSNull(), "loss_percent": NSNull(), "rate_mbps": NSNull(),
                        "mtu": NSNull(), "rssi_dbm": NSNull(), "snr_db": NSNull(), "mcs": NSNull(), "phy_rate_mbps": NSNull(),
                        "packets_up": NSNull(), "packets_down": NSNull(), "bytes_up": NSNull(), "bytes_down": NSNull(),
                        "drops_up": NSNull(), "drops_down": NSNull(),
                    ]
                    let cellID =
                        environments.count * distances.count * sizes.count == 1 ? "c-\(row.label)" : "c-\(row.label)-\(env)-\(distance)-\(size)"
                    let r: [String: Any] = [
                        "schema": "peerbench.record/1", "run_id": dir, "cell_id": cellID, "repetition": i + 1, "seed": 1,
                        "transport": ["plugin": "tcp", "label": row.label, "options": [:] as [String: Any]],
                        "environment": env, "distance_m": distance, "distance_label": "\(distance)", "payload": ["count": 100, "size": size],
                        "link": link, "status": "ok", "error": NSNull(), "started_at": "2026-11-23T01:58:55.525Z",
                        "connect_ms": 1.0, "bulk_seconds": 0.1, "total_seconds": 0.5, "throughput_mbps": v,
                        "rtt_ms": ["count": 20, "min": 1.0, "mean": 2.0, "p50": 2.0, "p90": 3.0, "p99": 4.0, "max": 4.0, "stddev": 0.5],
                        "jitter_ms": ["ipdv_mean": 0.1, "rfc3550": NSNull()],
                        "delivery": [
                            "sent_messages": 100, "received_messages": 100, "sent_bytes": 12800, "received_bytes": 12800,
                            "loss_ratio": 0.0, "reordered": 0, "duplicated": 0,
                        ],
                        "extra": [:] as [String: Any],
                    ]
                    lines.append(String(decoding: try JSONSerialization.data(withJSONObject: r), as: UTF8.self))
                }
            }
        }
        try CLI.write(lines.joined(separator: "\n") + "\n", to: dir + "/records.jsonl")
    }

    @Test func jsonFormatIsTheDocumentedContract() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11, 12, 13, 14]), ("udp", [20, 21, 22, 23, 24])])
        try Self.runFolder(d + "/b", environments: ["underground"], rows: [("tcp", [1, 2, 3, 4])])
        let r = try CLI.run(["compare", d + "/a", d + "/b", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(doc["schema"] as? String == "peerbench.compare/1" && doc["alpha"] as? Double == 0.05)
        #expect((doc["scenarios"] as? [Any])?.count == 2, "written one scenario at a time, still one document")
        #expect((doc["warnings"] as? [Any])?.isEmpty == true)
        let pairs = try #require((doc["scenarios"] as? [[String: Any]])?.first?["pairs"] as? [[String: Any]])
        let tp = try #require(pairs.first { $0["metric"] as? String == "throughput_mbps" })
        #expect(tp["a"] as? String == "tcp" && tp["verdict"] as? String == "worse")
        #expect(tp["floor_ms"] is NSNull && tp["reason"] is NSNull, "throughput has no floor")
        // The manifests' floors (real runs of tcp): applied to RTT pairs, the larger of the two runs'.
        let floor = try #require(doc["measurement_floor"] as? [String: Any])
        #expect(floor["runs"] as? Int == 2)
        let tcpFloor = try #require((floor["transports"] as? [[String: Any]])?.first { $0["label"] as? String == "tcp" })
        let rtt = try #require(pairs.first { $0["metric"] as? String == "rtt_p50_ms" })
        let expected = (tcpFloor["p50_ms"] as! Double) + (floor["clock_ms"] as! Double)
        #expect(abs((rtt["floor_ms"] as? Double ?? -1) - expected) < 1e-12, "tcp's floor (udp has none measured), no emulator")
        // The same input gives the same bytes.
        #expect(try CLI.run(["compare", d + "/a", d + "/b", "--format", "json"]).stdout == r.stdout)
    }

    @Test func textShowsVerdictMarksALegendAndTheFloor() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11, 12, 13, 14]), ("udp", [20, 21, 22, 23, 24])])
        let r = try CLI.run(["compare", d + "/a"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("tcp vs udp     ▼ p=0.00794"), "\(r.stdout)")
        #expect(r.stdout.contains("legend:"))
        #expect(r.stdout.contains("measurement floor (from 1 manifest): loopback RTT p50/p99 ms tcp "))
        #expect(!r.stdout.contains("note:") && !r.stdout.contains("warning:"), "five repetitions a side support a verdict: \(r.stdout)")
        let md = try CLI.run(["compare", d + "/a", "--format", "markdown"])
        #expect(md.stdout.contains("| tcp vs udp | ▼ p="), "\(md.stdout)")
    }

    /// Too few repetitions for any verdict (a first run of one repetition): said once at
    /// the top with the command that would give verdicts, and no table of question marks.
    @Test func tooFewRepetitionsAreSaidOnceAtTheTopWithoutATableOfQuestionMarks() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11]), ("udp", [20, 21])])
        let r = try CLI.run(["compare", d + "/a"])
        #expect(r.status == 0)
        #expect(
            r.stdout.hasPrefix(
                "note: No verdicts in this comparison: its scenarios have at most 2 ok repetitions per transport, "
                    + "and a verdict needs at least 4 on each side at alpha 0.05."), "\(r.stdout)")
        #expect(r.stdout.contains("/one.json --repetitions 6 --out DIR"), "the command names the run's matrix: \(r.stdout)")
        #expect(
            r.stdout.components(separatedBy: "too few repetitions").count == 1 && r.stdout.components(separatedBy: "No verdicts").count == 2,
            "said once: \(r.stdout)")
        #expect(!r.stdout.contains("pair (a vs b)") && !r.stdout.contains("tcp vs udp"), "\(r.stdout)")
        #expect(r.stdout.contains("tcp        2  10.5") && r.stdout.contains("udp        2  20.5"), "the per-transport figures stay: \(r.stdout)")
        // The machine-readable forms keep every pair and the warning.
        let csv = try CLI.run(["compare", d + "/a", "--format", "csv"])
        #expect(csv.stdout.hasPrefix("kind,environment,distance_label,payload,metric,a,b,n,median"))
        #expect(csv.stdout.contains("pair,forest,10,100x128,throughput_mbps,tcp,udp,"))
        #expect(csv.stderr.contains("warning: too few repetitions") && csv.stderr.contains("at least 4"))
        let md = try CLI.run(["compare", d + "/a", "--format", "markdown"])
        #expect(md.stdout.hasPrefix("> No verdicts") && md.stdout.contains("`peerbench run "), "\(md.stdout)")
    }

    @Test func oneRepetitionUsesTheProbesAsWithinRunEvidenceOnly() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10]), ("udp", [20])])
        // tcp's 20 probes 2.0..2.19 ms, udp's 1.0..1.19 ms: separated; one foreign line.
        let tcp = (0..<20).map { 2_000_000 + $0 * 10_000 }, udp = (0..<20).map { 1_000_000 + $0 * 10_000 }
        try CLI.write(
            """
            {"schema":"peerbench.samples/1","run_id":"\(d)/a","cell_id":"c-tcp","repetition":1,"rtt_ns":\(tcp),"rtt_loaded_ns":null,"bulk_series":null,"ranging":null}
            {"schema":"peerbench.samples/1","run_id":"\(d)/a","cell_id":"c-udp","repetition":1,"rtt_ns":\(udp),"rtt_loaded_ns":null,"bulk_series":null,"ranging":null}
            {"hello":"world"}

            """, to: d + "/a/samples.jsonl")
        let r = try CLI.run(["compare", d + "/a", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let s = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["scenarios"] as? [[String: Any]]).first
        let within = try #require(s?["within_run"] as? [[String: Any]])
        #expect(within.count == 1)
        #expect(within.first?["metric"] as? String == "rtt_probe_ms" && within.first?["verdict"] as? String == "worse", "tcp's probes are slower")
        #expect(abs((within.first?["shift"] as? Double ?? 0) - 1.0) < 1e-9, "1 ms apart")
        let pairs = try #require(s?["pairs"] as? [[String: Any]])
        #expect(pairs.allSatisfy { $0["verdict"] as? String == "insufficient" }, "one repetition: no verdict across runs")
        #expect(r.stderr.contains("samples.jsonl: line 3 not peerbench.samples/1, skipped"), "\(r.stderr)")
        let text = try CLI.run(["compare", d + "/a"])
        #expect(text.stdout.contains("within-run evidence") && text.stdout.contains("tcp vs udp"))
    }

    @Test func runsOverDifferentLinkModesAreRefused() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/em", hash: "h1", mode: "emulated", rows: [("tcp", [30, 31, 29])])
        try Self.runFolder(d + "/lo", hash: "h1", mode: "none", rows: [("tcp", [1200, 1100, 1300])])
        let r = try CLI.run(["compare", d + "/em", d + "/lo"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("link mode \"none\"") && r.stderr.contains("records.jsonl line 1"), "\(r.stderr)")
        #expect(r.stdout.isEmpty, "no table of pooled unlike figures")
    }

    @Test func aForeignLineIsSkippedWithAWarningNamingIt() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11])])
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: d + "/a/records.jsonl"))
        h.seekToEndOfFile()
        h.write(Data("{\"schema\":\"peerbench.record/9\",\"hello\":\"world\"}\n".utf8))
        try h.close()
        let r = try CLI.run(["compare", d + "/a"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("records.jsonl line 3: ") && r.stdout.contains("skipped"), "\(r.stdout)")
        #expect(r.stdout.contains("schema \"peerbench.record/9\""), "\(r.stdout)")
        let csv = try CLI.run(["compare", d + "/a", "--format", "csv"])
        #expect(csv.stdout.contains("transport,forest,10,100x128,throughput_mbps,tcp,,2,10.5,"), "both real records still count: \(csv.stdout)")
    }

    @Test func baselineExitsOneOnlyOnASignificantRegressionBeyondThePercentage() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/old", rows: [("tcp", [100, 101, 102, 103, 104, 105]), ("udp", [50, 51, 52, 53, 54, 55])])
        // tcp loses 20 %, udp unchanged (the same values).
        try Self.runFolder(d + "/new", rows: [("tcp", [80, 81, 82, 83, 84, 85]), ("udp", [50, 51, 52, 53, 54, 55])])
        let strict = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--fail-on-regression", "5"])
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains("forest · 10 · 100x128 · tcp · throughput_mbps: -19.5 %"), "\(strict.stderr)")
        #expect(strict.stdout.contains("regressed") && strict.stdout.contains("unchanged"))
        let lenient = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--fail-on-regression", "25"])
        #expect(lenient.status == 0, "a 20 % regression is within 25 %: \(lenient.stderr)")
        let plain = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--format", "json"])
        #expect(plain.status == 0, "no --fail-on-regression: report only")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(doc["schema"] as? String == "peerbench.baseline/1")
        let changes = try #require((doc["scenarios"] as? [[String: Any]])?.first?["changes"] as? [[String: Any]])
        let tcp = try #require(changes.first { $0["label"] as? String == "tcp" && $0["metric"] as? String == "throughput_mbps" })
        #expect(tcp["verdict"] as? String == "regressed")
        let rel = try #require(tcp["relative_change"] as? Double)
        #expect(abs(rel - (-20.0 / 102.5)) < 1e-9, "HL shift -20 over the old median 102.5")
        #expect(
            changes.first { $0["label"] as? String == "udp" && $0["metric"] as? String == "throughput_mbps" }?["verdict"] as? String == "unchanged")
    }

    @Test func baselineOfADifferentMatrixIsRefusedNamingTheDifference() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/old", hash: "h1", rows: [("tcp", [1, 2, 3, 4])])
        try Self.runFolder(d + "/new", hash: "h2", environments: ["underground"], rows: [("tcp", [1, 2, 3, 4])])
        let r = try CLI.run(["compare", "--baseline", d + "/old", d + "/new"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("different matrix") && r.stderr.contains("matrix.environments"), "\(r.stderr)")
    }
}
