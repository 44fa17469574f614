import Foundation
import Testing

/// `peerbench compare`: formats, mixed runs and baselines, on run folders written here
/// with the records and manifest a run leaves (the statistics themselves: PeerBenchCoreTests).
@Suite struct CLICompareTests {
    /// A run folder: manifest.json plus one record per (label, repetition, throughput).
    static func runFolder(_ dir: String, hash: String = "h1", mode: String = "none", environments: [String] = ["forest"],
                          rows: [(label: String, mbps: [Double])]) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let manifest: [String: Any] = ["schema": "peerbench.manifest/1", "run_id": dir, "status": "finished", "matrix_hash": hash,
                                       "link_mode": mode, "matrix": ["name": "t", "matrix": ["environments": environments]]]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
        var lines: [String] = []
        for row in rows {
            for (i, v) in row.mbps.enumerated() {
                let r: [String: Any] = ["schema": "peerbench.record/1", "run_id": dir, "cell_id": "c-\(row.label)", "repetition": i + 1,
                                        "environment": environments[0], "distance_label": "10", "payload": ["count": 100, "size": 128],
                                        "transport": ["label": row.label], "link": ["mode": mode], "status": "ok", "connect_ms": 1.0,
                                        "throughput_mbps": v, "rtt_ms": ["p50": 2.0, "p99": 4.0], "jitter_ms": ["ipdv_mean": 0.1],
                                        "delivery": ["loss_ratio": 0.0], "extra": [:] as [String: Any]]
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: r), as: UTF8.self))
            }
        }
        try CLI.write(lines.joined(separator: "\n") + "\n", to: dir + "/records.jsonl")
    }

    @Test func jsonFormatIsTheDocumentedContract() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11, 12, 13, 14]), ("udp", [20, 21, 22, 23, 24])])
        let r = try CLI.run(["compare", d + "/a", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(doc["schema"] as? String == "peerbench.compare/1" && doc["alpha"] as? Double == 0.05)
        let pairs = try #require((doc["scenarios"] as? [[String: Any]])?.first?["pairs"] as? [[String: Any]])
        let tp = try #require(pairs.first { $0["metric"] as? String == "throughput_mbps" })
        #expect(tp["a"] as? String == "tcp" && tp["verdict"] as? String == "worse")
        // The same input gives the same bytes.
        #expect(try CLI.run(["compare", d + "/a", "--format", "json"]).stdout == r.stdout)
    }

    @Test func textShowsVerdictMarksALegendAndTheRepetitionWarning() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11]), ("udp", [20, 21])])
        let r = try CLI.run(["compare", d + "/a"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("tcp vs udp"))
        #expect(r.stdout.contains("?"), "two repetitions: insufficient")
        #expect(r.stdout.contains("legend:"))
        #expect(r.stdout.contains("warning: too few repetitions") && r.stdout.contains("at least 4"))
        let csv = try CLI.run(["compare", d + "/a", "--format", "csv"])
        #expect(csv.stdout.hasPrefix("kind,environment,distance_label,payload,metric,a,b,n,median"))
        #expect(csv.stdout.contains("pair,forest,10,100x128,throughput_mbps,tcp,udp,"))
        #expect(csv.stderr.contains("warning: too few repetitions"))
        let md = try CLI.run(["compare", d + "/a", "--format", "markdown"])
        #expect(md.stdout.contains("| tcp vs udp |"))
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

    @Test func aForeignRecordIsRefusedNamingItsLine() throws {
        let d = CLI.tempDir()
        try Self.runFolder(d + "/a", rows: [("tcp", [10, 11])])
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: d + "/a/records.jsonl"))
        h.seekToEndOfFile()
        h.write(Data("{\"schema\":\"peerbench.record/9\",\"hello\":\"world\"}\n".utf8))
        try h.close()
        let r = try CLI.run(["compare", d + "/a"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("records.jsonl line 3") && r.stderr.contains("peerbench.record/9"), "\(r.stderr)")
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
        #expect(changes.first { $0["label"] as? String == "udp" && $0["metric"] as? String == "throughput_mbps" }?["verdict"] as? String == "unchanged")
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
