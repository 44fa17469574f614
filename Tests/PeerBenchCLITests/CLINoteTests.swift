import Foundation
import Testing

/// `run --note TEXT`: kept in the manifest (and on resume), shown by compare (text,
/// markdown, json), baseline list, a baseline comparison and the report's title.
@Suite struct CLINoteTests {
    static let matrix =
        #"{"name":"note","repetitions":1,"rttProbes":3,"cellTimeoutSeconds":20,"seed":1,"transports":[{"plugin":"tcp","label":"tcp"},{"plugin":"udp","label":"udp"}],"matrix":{"environments":["forest"],"distances":[10],"payloads":{"counts":[10],"sizes":[128]}}}"#

    func manifest(_ dir: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))) as! [String: Any]
    }

    @Test func aNoteTravelsFromTheRunToEveryViewOfIt() throws {
        let d = CLI.tempDir()
        try CLI.write(Self.matrix, to: d + "/m.json")
        let run = try CLI.run(["run", d + "/m.json", "--out", d + "/a", "--link", "none", "--note", "ngtcp2 0.12, Nagle on"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try manifest(d + "/a")["note"] as? String == "ngtcp2 0.12, Nagle on")
        // Resumed without --note: the note stays.
        let resumed = try CLI.run(["run", "--resume", d + "/a", "--link", "none"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try manifest(d + "/a")["note"] as? String == "ngtcp2 0.12, Nagle on")
        // A run without a note has "note": null (every key is written).
        #expect(try CLI.run(["run", d + "/m.json", "--out", d + "/b", "--link", "none"]).status == 0)
        #expect(try manifest(d + "/b")["note"] is NSNull)

        let text = try CLI.run(["compare", d + "/a", d + "/b"])
        #expect(text.stdout.hasPrefix("run \(d)/a: ngtcp2 0.12, Nagle on\n"), "\(text.stdout)")
        let json = try CLI.run(["compare", d + "/a", d + "/b", "--format", "json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(doc["notes"] as? [[String: String]] == [["directory": d + "/a", "note": "ngtcp2 0.12, Nagle on"]], "\(doc["notes"] ?? "none")")
        let none = try CLI.run(["compare", d + "/b", "--format", "json"])
        #expect(none.stdout.contains("\"notes\": null"), "\(none.stdout.prefix(300))")

        let store = d + "/store"
        #expect(try CLI.run(["baseline", "save", "nagle", d + "/a", "--baselines-dir", store]).status == 0)
        let list = try CLI.run(["baseline", "list", "--baselines-dir", store])
        #expect(list.stdout.contains("ngtcp2 0.12, Nagle on"), "\(list.stdout)")
        let md = try CLI.run(["compare", "--baseline", "nagle", "--baselines-dir", store, d + "/b", "--format", "markdown"])
        #expect(md.stdout.contains("**\(store)/nagle**: ngtcp2 0.12, Nagle on"), "\(md.stdout)")
        let bj = try CLI.run(["compare", "--baseline", "nagle", "--baselines-dir", store, d + "/b", "--format", "json"])
        let bdoc = try #require(try JSONSerialization.jsonObject(with: Data(bj.stdout.utf8)) as? [String: Any])
        #expect(bdoc["old_note"] as? String == "ngtcp2 0.12, Nagle on" && bdoc["new_note"] is NSNull)
    }

    @Test func aNoteIsOneShortLine() throws {
        let d = CLI.tempDir()
        try CLI.write(Self.matrix, to: d + "/m.json")
        let broken = try CLI.run(["run", d + "/m.json", "--out", d + "/a", "--link", "none", "--note", "one\nfake line"])
        #expect(
            broken.status == 64 && broken.stderr.contains("--note holds a line break or another control character; give one line"), "\(broken.stderr)"
        )
        let long = try CLI.run(["run", d + "/m.json", "--out", d + "/a", "--link", "none", "--note", String(repeating: "x", count: 201)])
        #expect(long.status == 64 && long.stderr.contains("--note is 201 characters; at most 200"), "\(long.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d + "/a"), "nothing written for a refused note")
    }

    @Test(.enabled(if: vlConvertAvailable, "needs python3 with vl-convert-python (scripts/setup.sh installs it)"))
    func theReportIsTitledByItsRunsNotes() throws {
        let d = CLI.tempDir()
        try ReportFixture.write(to: d + "/run", repetitions: 2, samples: false)
        var m = try manifest(d + "/run")
        m["note"] = "before <the> fix"
        try JSONSerialization.data(withJSONObject: m).write(to: URL(fileURLWithPath: d + "/run/manifest.json"))
        let r = try CLI.run(["report", d + "/run", "--out", d + "/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOfFile: d + "/report.html", encoding: .utf8)
        #expect(
            html.contains("<title>PeerBench report: before &lt;the&gt; fix</title>")
                && html.contains("<h1>PeerBench report: before &lt;the&gt; fix</h1>"))
    }
}
