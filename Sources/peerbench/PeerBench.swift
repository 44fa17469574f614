import ArgumentParser
import PeerBenchCore

/// The root command: configuration only; the work is in the subcommands.
@main
struct PeerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerbench",
        abstract: "Compare transport protocols head-to-head over an emulated peer-to-peer radio link.",
        discussion: """
            Exit codes: 0 every cell ok; 1 the run finished but some cells did not end ok; \
            2 bad input (matrix file, --out folder, option values); 3 the testbed could not be set up; \
            64 bad command-line usage; 130 interrupted (SIGINT/SIGTERM): the run stopped cleanly and can be resumed.
            """,
        version: Manifest.peerbenchVersion,
        subcommands: [
            RunCommand.self, ServeCommand.self, ValidateCommand.self, ListCommand.self, CompareCommand.self, BaselineCommand.self, ReportCommand.self,
            MergeCommand.self, PSKCommand.self, WorkerCommand.self, FloorProbeCommand.self,
        ]
    )
}
