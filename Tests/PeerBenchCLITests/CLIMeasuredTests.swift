import Foundation
import Testing

/// `peerbench compare --measured` and `report --measured` as a user runs them: a tiny run
/// folder and small CSV files in the study's format, exact output lines, exit codes.
@Suite struct CLIMeasuredTests {
    /// One record with only the keys `compare --measured` reads (a `/4` record's new keys included).
    static func record(_ cell: String, rep: Int, env: String, mean: Double, sd: Double, method: String, span: Double) -> String {
        #"{"schema":"peerbench.record/4","run_id":"r","cell_id":"\#(cell)","repetition":\#(rep),"transport":{"plugin":"tcp","label":"tcp","options":{}},"#
            + #""environment":"\#(env)","distance_m":1,"distance_label":"1","payload":{"count":100,"size":128},"status":"ok","#
            + #""rtt_ms":{"count":1000,"min":1,"mean":\#(mean),"p50":1,"p90":1,"p99":1,"max":1,"stddev":\#(sd)},"#
            + #""rtt_method":"\#(method)","receiver_span_mbps":\#(span),"throughput_mbps":999}"#
    }

    /// The run folder and the two CSV files (one bad row each); returns the folder.
    static func fixture() throws -> String {
        let d = CLI.tempDir()
        try FileManager.default.createDirectory(atPath: d + "/run", withIntermediateDirectories: true)
        let lines = [
            record("f", rep: 1, env: "free-field", mean: 40, sd: 9, method: "pipelined", span: 5),
            record("f", rep: 2, env: "free-field", mean: 50, sd: 10, method: "pipelined", span: 6),
            record("f", rep: 3, env: "free-field", mean: 60, sd: 11, method: "pipelined", span: 7),
            record("w", rep: 1, env: "forest", mean: 2, sd: 0.4, method: "ping-pong", span: 100),
            record("w", rep: 2, env: "forest", mean: 3, sd: 0.5, method: "ping-pong", span: 120),
        ]
        try CLI.write(lines.joined(separator: "\n") + "\n", to: d + "/run/records.jsonl")
        try CLI.write(
            """
            Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms)
            TCP,Field,1,30,8
            TCP,Field,1,50,10
            TCP,Field,1,70,12
            TCP,Forest,1,35,9
            TCP,Forest,1,37,9.5
            TCP,Forest,1,8.650.004883,9

            """, to: d + "/rtt.csv")
        try CLI.write(
            """
            Transport Protocol,Scenario,Distance (m),Transfer Speed (Mbps),Package Loss (%),Package Size (Bytes),Number of Packages
            TCP,Field,1,4,0,128,100
            TCP,Field,1,6,0,128,100
            TCP,"Forest",1,"110",0,128,100
            TCP,Forest,1,N/A,0,128,100

            """, to: d + "/transfer.csv")
        return d
    }

    @Test func textPrintsEachRowTheSummaryAndOneWarningPerSkippedRow() throws {
        let d = try Self.fixture()
        let r = try CLI.run(["compare", d + "/run", "--measured", d + "/rtt.csv", "--measured", d + "/transfer.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Hand-computed (type 7): field RTT measured [30, 50, 70] -> 40/50/60, emulated [40, 50, 60] -> 45/50/55.
        #expect(
            lines.contains("tcp        free-field  3       50.00 [40.00, 60.00]      3      50.00 [45.00, 55.00]      yes     1.00"), "\(r.stdout)")
        // Forest: measured [35, 37] -> 35.5/36/36.5; emulated [2, 3] -> 2.25/2.5/2.75; 2.5 / 36 = 0.069.
        #expect(lines.contains("tcp        forest      2       36.00 [35.50, 36.50]      2      2.50 [2.25, 2.75]         no      0.069"))
        // Jitter: measured [9, 9.5] -> 9.125/9.25/9.375, emulated SD [0.4, 0.5]: 0.45 / 9.25 = 0.049.
        #expect(lines.contains("tcp        forest      2       9.25 [9.12, 9.38]         2      0.45 [0.43, 0.47]         no      0.049"))
        // Transfer field 1 m: measured [4, 6] -> 4.5/5/5.5, emulated receiver span [5, 6, 7] -> 5.5/6/6.5: 6 is above 5.5.
        #expect(lines.contains("tcp        free-field  1 m       2       5.0 [4.5, 5.5]            3      6.0 [5.5, 6.5]            no      1.20"))
        #expect(lines.contains("tcp        forest      1 m       1       110.0 [110.0, 110.0]      2      110.0 [105.0, 115.0]      yes     1.00"))
        // Places pooled: measured [4, 6, 110] -> 5/6/58; emulated [5, 6, 7, 100, 120] -> 6/7/100.
        #expect(lines.contains("tcp        100    128 B  3       6.0 [5.0, 58.0]           5      7.0 [6.0, 100.0]          yes     1.17"))
        #expect(
            lines.contains(
                "summary: rtt_mean_ms 1 of 2 inside; rtt_jitter_ms 1 of 2 inside; transfer_mbps 1 of 2 inside; transfer_by_payload_mbps 1 of 1 inside"
            ))
        #expect(lines.contains("measured: 8 tests read from 2 files, 2 rows skipped"))
        #expect(
            lines.contains(
                "note: the study used 1 000 pipelined RTT probes; of the 5 emulated records in the RTT rows, 2 did not (rtt_method: 2 ping-pong); matrices/field-study-2025.json runs them from the app's send loop"
            ))
        #expect(lines.contains("warning: \(d)/rtt.csv:7: column \"Average RTT (ms)\": \"8.650.004883\" is not a number; row skipped"))
        #expect(lines.contains("warning: \(d)/transfer.csv:5: column \"Transfer Speed (Mbps)\": \"N/A\" is not a number; row skipped"))
        #expect(!r.stdout.contains("throughput_mbps"), "receiver_span_mbps is there: no fallback, no note")
    }

    @Test func jsonIsTheDocumentAndWarningsGoToStderr() throws {
        let d = try Self.fixture()
        let r = try CLI.run(["compare", d + "/run", "--measured", d + "/rtt.csv", "--measured", d + "/transfer.csv", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(doc["schema"] as? String == "peerbench.compare-measured/1")
        let tables = try #require(doc["tables"] as? [[String: Any]])
        #expect(tables.map { $0["metric"] as? String } == ["rtt_mean_ms", "rtt_jitter_ms", "transfer_mbps", "transfer_by_payload_mbps"])
        let row = try #require((tables[2]["rows"] as? [[String: Any]])?.first)
        #expect(row["place"] as? String == "free-field" && row["distance_m"] as? Double == 1 && row["count"] is NSNull)
        #expect((row["emulated"] as? [String: Any])?["median"] as? Double == 6 && row["inside"] as? Bool == false)
        #expect(r.stderr.split(separator: "\n").count == 2 && r.stderr.contains("peerbench: warning: \(d)/rtt.csv:7: "))
        #expect(
            try CLI.run(["compare", d + "/run", "--measured", d + "/rtt.csv", "--measured", d + "/transfer.csv", "--format", "json"]).stdout
                == r.stdout,
            "the same input gives the same bytes")
    }

    @Test func aFileWithAnUnknownColumnIsRefusedWithExit2() throws {
        let d = try Self.fixture()
        try CLI.write("Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms),Comment\nTCP,Field,1,30,8,x\n", to: d + "/bad.csv")
        let r = try CLI.run(["compare", d + "/run", "--measured", d + "/rtt.csv", "--measured", d + "/bad.csv"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(
            r.stderr
                == "peerbench: error: \(d)/bad.csv:1: unknown column \"Comment\" (an RTT file has \"Transport Protocol\", \"Scenario\", \"Distance (m)\", \"Average RTT (ms)\", \"Jitter (ms)\", \"distance_m\", \"file\")\n"
        )
        let missing = try CLI.run(["compare", d + "/run", "--measured", d + "/nowhere.csv"])
        #expect(missing.status == 2 && missing.stderr == "peerbench: error: \(d)/nowhere.csv: cannot read the file (--measured)\n")
        let csv = try CLI.run(["compare", d + "/run", "--measured", d + "/rtt.csv", "--format", "csv"])
        #expect(csv.status != 0 && csv.stderr.contains("--measured writes text, markdown or json, not csv"))
    }

    @Test func aMapFileRenamesPlacesAndABadOneIsNamedByItsPath() throws {
        let d = try Self.fixture()
        try CLI.write(
            "Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms)\nTCP,Park,1,45,9\nTCP,Park,1,55,11\n", to: d + "/park.csv")
        try CLI.write(#"{"places": {"Park": "free-field"}}"#, to: d + "/map.json")
        let r = try CLI.run(["compare", d + "/run", "--measured", d + "/park.csv", "--measured-map", d + "/map.json"])
        #expect(r.status == 0, "\(r.stderr)")
        // Measured [45, 55] -> 47.5/50/52.5; emulated 45/50/55: inside, ratio 1.
        #expect(
            r.stdout.contains("tcp        free-field  2       50.00 [47.50, 52.50]      3      50.00 [45.00, 55.00]      yes     1.00"), "\(r.stdout)"
        )
        #expect(r.stdout.contains("note: 2 emulated records (ok or partial) match no measured row"), "the forest records")
        try CLI.write(#"{"places": {"Park": 1}}"#, to: d + "/bad-map.json")
        let bad = try CLI.run(["compare", d + "/run", "--measured", d + "/park.csv", "--measured-map", d + "/bad-map.json"])
        #expect(bad.status == 2 && bad.stderr == "peerbench: error: \(d)/bad-map.json: $.places.Park: expected a non-empty string, got an integer\n")
    }

    @Test(.enabled(if: vlConvertAvailable, "needs python3 with vl-convert-python (scripts/setup.sh installs it)"))
    func reportDrawsTheMeasuredAndEmulatedBoxPlots() throws {
        // The report's own fixture (records before /4: throughput stands in for the receiver span).
        let d = CLI.tempDir()
        try ReportFixture.write(to: d + "/run")
        try CLI.write(
            "Transport Protocol,Scenario,Distance (m),Average RTT (ms),Jitter (ms),distance_m\nTCP,Field,10,40,9,10\nTCP,Field,10,60,11,10\nTCP,Field,10,N/A,11,10\n",
            to: d + "/rtt.csv")
        try CLI.write(
            "Transport Protocol,Scenario,Distance (m),Transfer Speed (Mbps),Package Loss (%),Package Size (Bytes),Number of Packages\n"
                + "TCP,Field,10,20,0,128,100\nTCP,Field,10,30,0,128,100\n", to: d + "/transfer.csv")
        let r = try CLI.run(["report", d + "/run", "--measured", d + "/rtt.csv", "--measured", d + "/transfer.csv", "--out", d + "/out/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let folder = d + "/out/report-figures"
        let svg = try String(contentsOfFile: folder + "/measured-vs-emulated.svg", encoding: .utf8)
        #expect(svg.contains("<svg"))
        let spec = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/measured-vs-emulated.vl.json"))) as? [String: Any]
        )
        #expect((spec["mark"] as? [String: Any])?["type"] as? String == "boxplot")
        // Every value of both sides: tcp at free-field 10 m has 8 ok records (2 payloads x 4), 4 of them 100 x 128:
        // RTT mean and SD 2 measured + 8 emulated each, transfers 2 + 4 in each of the two tables.
        let values = try #require((spec["data"] as? [String: Any])?["values"] as? [[String: Any]])
        let expected = 32  // 2 x (2 + 8) + 2 x (2 + 4)
        #expect(values.count == expected)
        let doc = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/measured-comparison.json"))) as? [String: Any])
        #expect(doc["schema"] as? String == "peerbench.compare-measured/1")
        #expect(r.stderr.contains("rtt.csv:4: column \"Average RTT (ms)\": \"N/A\" is not a number; row skipped"), "the skipped row is warned about")
        #expect(try String(contentsOfFile: d + "/out/report.html", encoding: .utf8).contains("id=\"measured-vs-emulated\""))
        // In a browser, with no network: the box plots draw like the other figures.
        guard HeadlessChromium.binary != nil else { return }
        let page = try HeadlessChromium.load(d + "/out/report.html")
        #expect(HeadlessChromium.errors(page.console) == [], "console: \(page.console)")
        let div = try #require(page.dom.range(of: "id=\"fig-measured-vs-emulated\""))
        #expect(page.dom[div.upperBound...].prefix(4000).contains("<svg"), "the measured figure did not draw")
    }
}
