import Foundation
import Testing

/// Lines in records.jsonl that do not belong to the run are set aside on `--resume`
/// with a warning naming the line, and never count as done (issue 16 §5).
@Suite(.serialized) struct CLIForeignRecordsTests {
    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func foreignLinesAreSetAsideAndTheirCellsRunAgain() async throws {
        let dir = CLI.tempDir()
        try CLI.write(
            """
            {"name": "foreign", "rttProbes": 3, "cellTimeoutSeconds": 20, "transports": [{"plugin": "misbehaving", "label": "a"}],
             "matrix": {"environments": ["forest"], "distances": [1], "payloads": {"counts": [1, 2, 3], "sizes": [128]}}}
            """, to: dir + "/m.json")
        let out = dir + "/out"
        let first = try await CLIUnattendedTests.run(["run", dir + "/m.json", "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        let own = try CLI.records(in: out)
        try #require(own.count == 3)
        let runID = try #require(own[0]["run_id"] as? String)
        let lines = CLIUnattendedTests.lines(out)
        var otherRun = own[1]
        otherRun["run_id"] = "20260101T000000Z-deadbeef"
        var otherSchema = own[2]
        otherSchema["schema"] = "peerbench.record/9"
        var otherCell = own[0]
        otherCell["cell_id"] = "ffffffffffffffff"
        let journal = [
            lines[0], try Self.json(otherRun), try Self.json(otherSchema), #"{"schema":"peerbench.record/9","hello":"world"}"#,
            #"{"a":1}"#, try Self.json(otherCell),
        ]
        try CLI.write(journal.joined(separator: "\n") + "\n", to: out + "/records.jsonl")

        let resumed = try await CLIUnattendedTests.run(["run", dir + "/m.json", "--resume", out])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        for line in 2...6 {
            #expect(resumed.stderr.contains("warning: \(out)/records.jsonl line \(line) "), "line \(line) named: \(resumed.stderr)")
        }
        #expect(resumed.stderr.contains("line 2 is a record of another run (run_id 20260101T000000Z-deadbeef"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains(#"line 3 has schema "peerbench.record/9""#), "\(resumed.stderr)")
        #expect(!resumed.stderr.contains("line 1 "), "the run's own record is not foreign")

        let after = CLIUnattendedTests.lines(out)
        #expect(Array(after.prefix(6)) == journal, "nothing already in the journal is rewritten or dropped")
        #expect(after.count == 8, "cells 2 and 3 ran again: their only records were foreign")
        let mine = try CLI.records(in: out).filter {
            $0["run_id"] as? String == runID && $0["schema"] as? String == "peerbench.record/6" && $0["cell_id"] as? String != "ffffffffffffffff"
        }
        #expect(Set(CLIUnattendedTests.keys(mine)) == Set(CLIUnattendedTests.keys(own)), "each of the run's cells exactly once")
        #expect(mine.count == 3)
        let csv = try String(contentsOfFile: out + "/records.csv", encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 4, "header + the run's 3 records, no foreign row")
        let m = try CLIUnattendedTests.manifest(out)
        #expect((m["summary"] as? [String: Any])?["ok"] as? Int == 3, "\(m["summary"] ?? "")")
    }
}
