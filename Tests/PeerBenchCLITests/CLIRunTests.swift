import Foundation
import Testing

/// End to end: a tiny matrix on loopback through the real binary and real sockets.
@Suite(.serialized) struct CLIRunTests {
    let tiny = """
        {"name": "tiny", "rttProbes": 25, "cellTimeoutSeconds": 20, "seed": 3,
         "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "tcp", "label": "tcp-nodelay", "options": {"noDelay": true}},
                        {"plugin": "udp", "label": "udp"}],
         "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [200], "sizes": [128, 4096]}}}
        """

    @Test func runWritesRecordsManifestAndCSV() throws {
        let dir = CLI.tempDir()
        try CLI.write(tiny, to: dir + "/tiny.json")
        let r = try CLI.run(["run", dir + "/tiny.json", "--out", dir + "/out", "--link", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let records = try CLI.records(in: dir + "/out")
        #expect(records.count == 6)
        for rec in records {
            let label = (rec["transport"] as! [String: Any])["label"] as! String
            #expect(rec["status"] as? String == "ok", "\(label): \(rec["error"] ?? "")")
            let rtt = rec["rtt_ms"] as! [String: Any]
            #expect(rtt["count"] as? Int == 25)
            let d = rec["delivery"] as! [String: Any]
            #expect(d["sent_messages"] as? Int == 200)
            #expect((rec["throughput_mbps"] as? Double ?? 0) > 0)
            #expect((rec["link"] as! [String: Any])["mode"] as? String == "none")
            if label.hasPrefix("tcp") {
                #expect(d["received_messages"] as? Int == 200)
                #expect(d["loss_ratio"] as? Double == 0)
                #expect((rec["extra"] as! [String: Any])["tcp"] != nil)
            }
        }
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json"))) as! [String: Any]
        #expect(manifest["status"] as? String == "finished")
        #expect((manifest["summary"] as! [String: Any])["ok"] as? Int == 6)
        let csv = try String(contentsOfFile: dir + "/out/records.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 7)

        // The same folder again: refused, and the records are untouched.
        let again = try CLI.run(["run", dir + "/tiny.json", "--out", dir + "/out", "--link", "none"])
        #expect(again.status == 2)
        #expect(try CLI.records(in: dir + "/out").count == 6)

        let cmp = try CLI.run(["compare", dir + "/out"])
        #expect(cmp.status == 0)
        #expect(cmp.stdout.contains("free-field · 1 m · 200x128 B"))
        #expect(cmp.stdout.contains("tcp-nodelay"))
    }

    @Test func listShowsPluginsWithOptionsAndDefaults() throws {
        let r = try CLI.run(["list"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("tcp:"))
        #expect(r.stdout.contains("noDelay"))
        #expect(r.stdout.contains("keepAlive.idleSeconds"))
        #expect(r.stdout.contains("udp:"))
        #expect(r.stdout.contains("rateMbps"))
    }

    @Test func validatePrintsCountAndEstimate() throws {
        let dir = CLI.tempDir()
        try CLI.write(tiny, to: dir + "/tiny.json")
        let r = try CLI.run(["validate", dir + "/tiny.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("cells: 6 (6 per repetition x 1 repetition)"))
        #expect(r.stdout.contains("estimated duration:"))
        #expect(r.stdout.contains("rtt probes: 25, ping-pong"))
    }

    /// The field day's design as a matrix anyone can run: it validates with every
    /// built-in plugin (udp carries 9 216-byte messages in one datagram).
    @Test func theFieldStudyMatrixValidates() throws {
        let r = try CLI.run(["validate", "matrices/field-study-2025.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("transports: tcp (tcp), udp (udp), quic (quic)"))
        #expect(r.stdout.contains("4 environments x 3 distances x 9 payloads (3 counts x 3 sizes)"))
        #expect(r.stdout.contains("rtt probes: 1000, send-loop, in 216 of 648 cells (rttPayloads: counts 100)"), "\(r.stdout)")
        #expect(r.stdout.contains("cells: 648 (324 per repetition x 2 repetitions)"))
    }

    @Test func aBadRTTMethodIsNamedWithFileAndPath() throws {
        let dir = CLI.tempDir()
        try CLI.write(tiny.replacingOccurrences(of: #""rttProbes": 25"#, with: #""rttProbes": 25, "rttMethod": "burst""#), to: dir + "/bad.json")
        let r = try CLI.run(["validate", dir + "/bad.json"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("$.rttMethod"), "\(r.stderr)")
        #expect(r.stderr.contains(#"expected one of "ping-pong", "pipelined", "send-loop", got "burst""#), "\(r.stderr)")
    }
}
