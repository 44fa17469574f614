import Foundation
import Testing

/// Named baselines, per-metric thresholds and the Markdown summary for CI
/// (`peerbench baseline save|list`, `compare --baseline NAME --thresholds FILE
/// [--fail-on-improvement] --format markdown`), on run folders written as a run leaves them.
@Suite struct CLIBaselineTests {
    /// OLD: tcp 100-105 Mbit/s, udp 50-55. NEW: tcp 80-85 (a planted regression of -19.5 %,
    /// Hodges-Lehmann shift -20 Mbit/s), udp 60-65 (an improvement of +19.0 %: 10 over 52.5).
    static func runs() throws -> String {
        let d = CLI.tempDir()
        try CLICompareTests.runFolder(d + "/old", rows: [("tcp", [100, 101, 102, 103, 104, 105]), ("udp", [50, 51, 52, 53, 54, 55])])
        try CLICompareTests.runFolder(d + "/new", rows: [("tcp", [80, 81, 82, 83, 84, 85]), ("udp", [60, 61, 62, 63, 64, 65])])
        return d
    }

    func compare(_ d: String, thresholds: String?, _ extra: [String] = []) throws -> CLIResult {
        var args = ["compare", "--baseline", d + "/old", d + "/new"] + extra
        if let thresholds {
            try CLI.write(thresholds, to: d + "/t.json")
            args += ["--thresholds", d + "/t.json"]
        }
        return try CLI.run(args)
    }

    @Test func aRegressionFailsOnlyPastItsThreshold() throws {
        let d = try Self.runs()
        // 19.5 % is past 10 % ...
        let past = try compare(d, thresholds: #"{"metrics": {"throughput_mbps": {"percent": 10}}}"#)
        #expect(past.status == 1, "\(past.stderr)")
        #expect(past.stderr.contains("peerbench: regression: forest · 10 · 100x128 · tcp · throughput_mbps: -19.5 %"), "\(past.stderr)")
        #expect(past.stderr.contains("1 significant regression past the thresholds of \(d)/t.json"), "\(past.stderr)")
        // ... within 25 %, and within 30 Mbit/s absolute.
        for within in [#"{"metrics": {"throughput_mbps": {"percent": 25}}}"#, #"{"default": {"absolute": 30}}"#] {
            let r = try compare(d, thresholds: within)
            #expect(r.status == 0, "\(within): \(r.stderr)")
            #expect(!r.stderr.contains("regression:"), "\(r.stderr)")
        }
        // Both bounds given: the change must exceed both (past 10 %, within 30 Mbit/s).
        let both = try compare(d, thresholds: #"{"metrics": {"throughput_mbps": {"percent": 10, "absolute": 30}}}"#)
        #expect(both.status == 0, "\(both.stderr)")
        let tight = try compare(d, thresholds: #"{"metrics": {"throughput_mbps": {"percent": 10, "absolute": 15}}}"#)
        #expect(tight.status == 1, "past 10 % and past 15 Mbit/s: \(tight.stderr)")
        // The JSON document says which change is past its threshold, and the shift in Mbit/s.
        let json = try compare(d, thresholds: #"{"metrics": {"throughput_mbps": {"percent": 25}}}"#, ["--format", "json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require((doc["scenarios"] as? [[String: Any]])?.first?["changes"] as? [[String: Any]])
        let tcp = try #require(changes.first { $0["label"] as? String == "tcp" && $0["metric"] as? String == "throughput_mbps" })
        #expect(tcp["verdict"] as? String == "regressed" && tcp["past_threshold"] as? Bool == false, "\(tcp)")
        #expect(tcp["shift"] as? Double == -20)
        let plain = try compare(d, thresholds: nil, ["--format", "json"])
        #expect(plain.stdout.contains("\"past_threshold\": null"), "no thresholds: null")
    }

    @Test func anImprovementPastItsThresholdIsReportedAndFailsOnlyWhenAsked() throws {
        let d = try Self.runs()
        let t = #"{"default": {"percent": 5}, "metrics": {"throughput_mbps": {"percent": 25}}}"#
        // tcp's regression is within 25 %; udp's improvement too: nothing to say.
        let quiet = try compare(d, thresholds: t)
        #expect(quiet.status == 0 && !quiet.stderr.contains("improvement:"), "\(quiet.stderr)")
        let loose = #"{"default": {"percent": 5}, "metrics": {"throughput_mbps": {"percent": 15}}}"#
        let r = try compare(d, thresholds: loose)
        #expect(r.status == 1, "the regression is past 15 % too: \(r.stderr)")
        #expect(r.stderr.contains("peerbench: improvement: forest · 10 · 100x128 · udp · throughput_mbps: +19.0 %"), "\(r.stderr)")
        #expect(r.stderr.contains("the baseline may want refreshing"), "\(r.stderr)")
        // Only the improvement past its threshold: exit 0 unless --fail-on-improvement.
        try CLICompareTests.runFolder(d + "/new", rows: [("tcp", [100, 101, 102, 103, 104, 105]), ("udp", [60, 61, 62, 63, 64, 65])])
        let improved = try compare(d, thresholds: loose)
        #expect(improved.status == 0, "\(improved.stderr)")
        #expect(improved.stderr.contains("1 significant improvement past the thresholds"), "\(improved.stderr)")
        let strict = try compare(d, thresholds: loose, ["--fail-on-improvement"])
        #expect(strict.status == 1, "\(strict.stderr)")
        let pct = try compare(d, thresholds: nil, ["--fail-on-regression", "5", "--fail-on-improvement"])
        #expect(pct.status == 1, "--fail-on-regression PCT is a threshold for improvements too: \(pct.stderr)")
    }

    @Test func thresholdErrorsNameTheFileAndTheJSONPath() throws {
        let d = try Self.runs()
        let cases: [(String, String)] = [
            (
                #"{"metrics": {"rtt_p95_ms": {"absolute": 2}}}"#,
                #"t.json: $.metrics.rtt_p95_ms: unknown metric "rtt_p95_ms" (known: throughput_mbps, rtt_p50_ms, rtt_p99_ms"#
            ),
            (
                #"{"metrics": {"throughput_mbps": {"percent": -5}}}"#,
                "t.json: $.metrics.throughput_mbps.percent: a threshold is a size, 0 or more, got -5"
            ),
            (#"{"metrics": {"throughput_mbps": {"pct": 5}}}"#, "t.json: $.metrics.throughput_mbps.pct: unknown key (known: percent, absolute)"),
            (#"{"metrics": {"throughput_mbps": {}}}"#, #"t.json: $.metrics.throughput_mbps: give "percent", "absolute" or both"#),
            (#"{"default": {"percent": "5"}}"#, "t.json: $.default.percent: expected a number, got a string"),
            (#"{"defaults": {}}"#, "t.json: $.defaults: unknown key (known: default, metrics)"),
            (#"[1]"#, #"t.json: $: expected an object with "default" and/or "metrics", got an array"#),
            (#"{"default": "#, "t.json: not valid JSON"),
        ]
        for (text, message) in cases {
            let r = try compare(d, thresholds: text)
            #expect(r.status == 2, "\(text): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(text): \(r.stderr)")
            #expect(r.stdout.isEmpty, "nothing compared with a bad thresholds file: \(r.stdout)")
        }
        let both = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--thresholds", d + "/t.json", "--fail-on-regression", "5"])
        #expect(both.status == 64 && both.stderr.contains("give --thresholds FILE or --fail-on-regression PCT, not both"), "\(both.stderr)")
        let lone = try CLI.run(["compare", d + "/new", "--fail-on-improvement"])
        #expect(
            lone.status == 64 && lone.stderr.contains("--fail-on-improvement needs --thresholds FILE or --fail-on-regression PCT"), "\(lone.stderr)")
    }

    @Test func namedBaselinesAreSavedListedAndComparedAgainst() throws {
        let d = try Self.runs()
        let store = d + "/store"
        let saved = try CLI.run(["baseline", "save", "main-1", d + "/old", "--baselines-dir", store])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("saved 12 records (1 scenarios; tcp, udp) of \(d)/old as baseline \"main-1\""), "\(saved.stdout)")
        for f in ["manifest.json", "records.jsonl"] {
            #expect(FileManager.default.contentsEqual(atPath: d + "/old/" + f, andPath: store + "/main-1/" + f), "\(f) kept byte for byte")
        }
        let list = try CLI.run(["baseline", "list", "--baselines-dir", store])
        #expect(list.status == 0 && list.stdout.contains("main-1") && list.stdout.contains("\(d)/old"), "\(list.stdout)")
        // compare --baseline NAME is compare --baseline FOLDER.
        let byName = try CLI.run(["compare", "--baseline", "main-1", "--baselines-dir", store, d + "/new", "--format", "csv"])
        let byFolder = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--format", "csv"])
        #expect(byName.status == 0 && byName.stdout == byFolder.stdout, "\(byName.stderr)")
        // An existing name is kept unless --replace.
        let again = try CLI.run(["baseline", "save", "main-1", d + "/new", "--baselines-dir", store])
        #expect(
            again.status == 2 && again.stderr.contains("a baseline named \"main-1\" exists (saved from \(d)/old); give --replace"), "\(again.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: d + "/old/records.jsonl", andPath: store + "/main-1/records.jsonl"))
        let replaced = try CLI.run(["baseline", "save", "main-1", d + "/new", "--baselines-dir", store, "--replace"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(FileManager.default.contentsEqual(atPath: d + "/new/records.jsonl", andPath: store + "/main-1/records.jsonl"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store) == ["main-1"], "no staging folder left behind")
        // Bad names, unknown names, folders that are not runs.
        let bad = try CLI.run(["baseline", "save", "../x", d + "/old", "--baselines-dir", store])
        #expect(bad.status == 2 && bad.stderr.contains("baseline name \"../x\": use 1-64 letters, digits"), "\(bad.stderr)")
        let unknown = try CLI.run(["compare", "--baseline", "main-2", "--baselines-dir", store, d + "/new"])
        #expect(
            unknown.status == 2 && unknown.stderr.contains("main-2: neither a run folder nor a saved baseline (saved in \(store): main-1)"),
            "\(unknown.stderr)")
        try FileManager.default.createDirectory(atPath: d + "/empty", withIntermediateDirectories: true)
        let empty = try CLI.run(["baseline", "save", "e", d + "/empty", "--baselines-dir", store])
        #expect(empty.status == 2 && empty.stderr.contains("no manifest.json here"), "\(empty.stderr)")
    }

    @Test func markdownLeadsWithWhatMattersForACISummary() throws {
        let d = try Self.runs()
        let r = try compare(d, thresholds: #"{"metrics": {"throughput_mbps": {"percent": 10}}}"#, ["--format", "markdown"])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "## PeerBench: `\(d)/new` against `\(d)/old`", "\(r.stdout)")
        #expect(lines.contains("**1 regression**, 1 improvement past the thresholds; 10 unchanged."), "\(r.stdout)")
        let regression = try #require(lines.firstIndex { $0.hasPrefix("| 🔴 regressed | forest · 10 m · 100x128 B | tcp | Mbit/s |") })
        let improvement = try #require(lines.firstIndex { $0.hasPrefix("| 🟢 improved | forest · 10 m · 100x128 B | udp | Mbit/s |") })
        #expect(regression < improvement, "regressions first")
        #expect(lines[regression].contains("| -19.5 % |"), "\(lines[regression])")
        #expect(r.stdout.contains("<details><summary>Every scenario</summary>") && r.stdout.hasSuffix("</details>\n"))
    }

    /// The shipped example thresholds parse, and every option the example CI workflow
    /// gives `peerbench` exists, so the examples do not rot.
    @Test func theCIExamplesUseWhatExists() throws {
        let d = try Self.runs()
        let r = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--thresholds", CLI.packageRoot + "/docs/examples/thresholds.json"])
        #expect(r.status == 1, "tcp's -19.5 % is past the example's 5 %: \(r.stderr)")
        let workflow = try String(contentsOfFile: CLI.packageRoot + "/docs/examples/github-workflow.yml", encoding: .utf8)
        let help =
            try ["compare", "run"].map { try CLI.run([$0, "--help"]).stdout }.joined()
            + (try CLI.run(["baseline", "save", "--help"]).stdout)
        let options = Set(
            workflow.split(separator: "\n").filter { $0.contains("peerbench") || $0.contains("--") }
                .flatMap { line in line.split(separator: " ").filter { $0.hasPrefix("--") && $0.count > 2 } }
                .map { String($0.prefix { $0 == "-" || $0.isLetter }) })
        #expect(
            options.isSuperset(of: ["--baseline", "--thresholds", "--format", "--baselines-dir", "--fail-on-improvement", "--out"]), "\(options)")
        for o in options where o != "--preserve-env" {
            #expect(help.contains(o), "\(o) in docs/examples/github-workflow.yml is no peerbench option")
        }
    }
}
