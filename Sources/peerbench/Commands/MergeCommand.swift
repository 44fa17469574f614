import ArgumentParser
import PeerBenchCore

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the run folders of a run's shards (run --shard K/N) into one folder.",
        discussion: """
            Refuses folders of different matrices (matrix_hash in manifest.json), schemas, seeds, repetitions, transports \
            or shard counts, and an incomplete set (naming the shards not given and the folders not finished) unless \
            --allow-incomplete. A record found in several folders is written once; lines that are not records of their \
            folder's run are set aside in OUT/set-aside.jsonl with a warning naming the file and line. Writes \
            OUT/records.jsonl, OUT/manifest.json, OUT/records.csv and, when the inputs have them, OUT/samples.jsonl.
            """
    )

    @Argument(help: "The shards' run folders.")
    var dirs: [String]

    @Option(help: "The folder to write (created; must not hold records yet).")
    var out: String

    @Flag(
        name: .customLong("allow-incomplete"),
        help:
            "Merge even when cells of the matrix have no record (a shard missing or unfinished); the manifest lists what is missing under \"incomplete\"."
    )
    var allowIncomplete = false

    func validate() throws {
        if dirs.isEmpty { throw ValidationError("give the run folders to merge") }
    }

    func run() async throws {
        let report: RunMerge.Report
        do { report = try RunMerge.merge(dirs, into: out, allowIncomplete: allowIncomplete) } catch { throw fail(error) }
        for w in report.warnings { Terminal.err("peerbench: warning: \(w)") }
        Terminal.err(
            "peerbench: merged \(report.inputs) folders into \(out): \(report.recordsWritten) records"
                + (report.duplicatesDropped > 0 ? ", \(report.duplicatesDropped) exact duplicates dropped" : "")
                + (report.setAside > 0 ? ", \(report.setAside) foreign lines set aside" : "")
                + (report.samplesWritten > 0 ? ", \(report.samplesWritten) samples lines" : "")
                + (report.cellsMissing > 0 ? ", \(report.cellsMissing) cells missing" : ""))
    }
}
