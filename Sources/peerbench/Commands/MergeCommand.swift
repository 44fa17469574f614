import ArgumentParser
import PeerBenchCore

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the run folders of a run's shards (run --shard K/N) into one folder.",
        discussion: """
            Refuses folders of different matrices (matrix_hash in manifest.json), seeds, repetitions or transports. \
            A record found in several folders is written once. Writes OUT/records.jsonl, OUT/manifest.json and OUT/records.csv.
            """
    )

    @Argument(help: "The shards' run folders.")
    var dirs: [String]

    @Option(help: "The folder to write (created; must not hold records yet).")
    var out: String

    func validate() throws {
        if dirs.isEmpty { throw ValidationError("give the run folders to merge") }
    }

    func run() async throws {
        let report: RunMerge.Report
        do { report = try RunMerge.merge(dirs, into: out) } catch { throw fail(error) }
        for w in report.warnings { Terminal.err("peerbench: warning: \(w)") }
        Terminal.err("peerbench: merged \(report.inputs) folders into \(out): \(report.recordsWritten) records"
            + (report.duplicatesDropped > 0 ? ", \(report.duplicatesDropped) exact duplicates dropped" : ""))
    }
}
