import Foundation
import Testing

/// `validate --shards N` and `--calibrate-from` (validate and run --dry-run), as a user runs them.
@Suite struct CLIShardPlanTests {
    let matrix = """
        {"name": "shards", "repetitions": 1, "rttProbes": 10, "cellTimeoutSeconds": 60, "seed": 3,
         "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}],
         "matrix": {"environments": ["free-field", "forest"], "distances": [10, "max"],
                    "payloads": {"counts": [100, 20000], "sizes": [16384]}}}
        """

    @Test func validatePrintsEachShardsCellsAndEstimatedTime() throws {
        let dir = CLI.tempDir()
        try CLI.write(matrix, to: dir + "/m.json")
        let r = try CLI.run(["validate", dir + "/m.json", "--shards", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").filter { $0.hasPrefix("1/3") || $0.hasPrefix("2/3") || $0.hasPrefix("3/3") }
        #expect(rows.count == 3, "\(r.stdout)")
        let cells = rows.map { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1])! }
        #expect(cells.reduce(0, +) == 16)
        #expect(r.stdout.contains("longest shard: "))
        #expect(r.stdout.contains("Slurm --time: "))
        #expect(r.stdout.contains("estimate basis: cost model"))

        let bad = try CLI.run(["validate", dir + "/m.json", "--shards", "0"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--shards"))
    }

    @Test func calibrateFromRefusesAnotherMatrixsRun() throws {
        let dir = CLI.tempDir()
        try CLI.write(matrix, to: dir + "/m.json")
        try CLI.write(matrix.replacingOccurrences(of: "\"seed\": 3", with: "\"seed\": 4"), to: dir + "/other.json")
        let run = try CLI.run(["run", dir + "/other.json", "--out", dir + "/other", "--link", "none", "--transports", "udp", "--quiet"])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        let r = try CLI.run(["validate", dir + "/m.json", "--calibrate-from", dir + "/other"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--calibrate-from") && r.stderr.contains("another matrix"), "\(r.stderr)")
        let same = try CLI.run(["validate", dir + "/other.json", "--calibrate-from", dir + "/other"])
        #expect(same.status == 0)
        #expect(same.stdout.contains("estimate basis: measured in \(dir)/other for 8 cells"), "\(same.stdout)")
        // run --dry-run takes the same calibration, and refuses another matrix's run the same way
        let dry = try CLI.run(["run", dir + "/other.json", "--dry-run", "--link", "none", "--calibrate-from", dir + "/other"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("estimate basis: measured in \(dir)/other for 8 cells"), "\(dry.stdout)")
        let dryOther = try CLI.run(["run", dir + "/m.json", "--dry-run", "--link", "none", "--calibrate-from", dir + "/other"])
        #expect(dryOther.status == 2 && dryOther.stderr.contains("another matrix"), "\(dryOther.stderr)")
    }
}
