import Foundation
import Testing

/// A run folder or baseline made by a version whose cell ids differ (issue 42, item 1:
/// 4924712 moved every tcp id) must be named as such, not met with an empty table or
/// a silent rerun of every cell. The older version's journal is made here by giving a
/// run's records other ids, as such a version would have written them.
@Suite struct CellIDMismatchTests {
    /// Replaces every cell id in `dir`'s journal by another 16-hex-digit id (one per id).
    static func moveIDs(in dir: String) throws {
        let path = dir + "/records.jsonl"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let ids = Set(text.matches(of: /"cell_id":"([^"]+)"/).map { String($0.1) })
        for (i, id) in ids.sorted().enumerated() {
            text = text.replacingOccurrences(
                of: "\"cell_id\":\"\(id)\"", with: "\"cell_id\":\"\(String(format: "%016llx", 0xfeed_0000 + UInt64(i)))\"")
        }
        try CLI.write(text, to: path)
    }

    @Test("run --resume of a run whose records match none of its matrix's cell ids says so in one warning, and runs the cells again")
    func resumeSaysTheIDsDiffer() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLI.write(
            """
            {"name": "ids", "rttProbes": 2, "repetitions": 2, "cellTimeoutSeconds": 20,
             "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}],
             "matrix": {"environments": ["free-field"], "distances": [1], "payloads": {"counts": [5], "sizes": [100]}}}
            """, to: d + "/m.json")
        let first = try CLI.run(["run", d + "/m.json", "--out", d + "/out", "--link", "none"])
        #expect(first.status == 0, "\(first.stderr)")
        // The same run resumed as it is: nothing to say, nothing to run.
        let again = try CLI.run(["run", d + "/m.json", "--resume", d + "/out"])
        #expect(again.status == 0 && !again.stderr.contains("cell ids differ"), "\(again.stderr)")

        try Self.moveIDs(in: d + "/out")
        let r = try CLI.run(["run", d + "/m.json", "--resume", d + "/out"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains("4 of 4 records of this run in \(d)/out/records.jsonl match no cell of its matrix (lines 1, 2, 3, ...;"), "\(r.stderr)")
        #expect(r.stderr.contains("made by a version whose cell ids differ? (docs/RECORDS.md, \"Cell ids\")"), "\(r.stderr)")
        // One warning, not one per record.
        #expect(!r.stderr.contains("is a record of a cell this run's matrix does not have"), "\(r.stderr)")
        let records = try CLI.records(in: d + "/out")
        #expect(records.count == 8, "the 4 cells ran again beside the 4 set-aside records: \(records.count)")
    }

    @Test("compare --baseline of two runs whose transports share no cell id says they were made by versions whose ids differ")
    func baselineSaysTheIDsDiffer() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try CLICompareTests.runFolder(d + "/old", rows: [("tcp", [100, 101, 102, 103, 104, 105]), ("udp", [50, 51, 52, 53, 54, 55])])
        try CLICompareTests.runFolder(d + "/new", rows: [("tcp", [100, 101, 102, 103, 104, 105]), ("udp", [50, 51, 52, 53, 54, 55])])
        // Hex ids, the same in both: as one version writes them.
        for dir in [d + "/old", d + "/new"] {
            let path = dir + "/records.jsonl"
            let text = try String(contentsOfFile: path, encoding: .utf8)
                .replacingOccurrences(of: "\"c-tcp\"", with: "\"00000000000000aa\"").replacingOccurrences(
                    of: "\"c-udp\"", with: "\"00000000000000bb\"")
            try CLI.write(text, to: path)
        }
        let same = try CLI.run(["compare", "--baseline", d + "/old", d + "/new"])
        #expect(same.status == 0 && !(same.stdout + same.stderr).contains("cell ids differ"), "\(same.stdout)\n\(same.stderr)")

        try Self.moveIDs(in: d + "/old")
        for format in ["text", "json"] {
            let r = try CLI.run(["compare", "--baseline", d + "/old", d + "/new", "--format", format])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                (r.stdout + r.stderr).contains(
                    "2 of 2 transports (environment · distance · payload · label) have no cell id in common in \(d)/old and \(d)/new: made by a version whose cell ids differ?"
                ),
                "\(format): \(r.stdout)\n\(r.stderr)")
        }
    }
}
