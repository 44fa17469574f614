import ArgumentParser
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed

/// `run --interactive [--answers FILE|-]`: the field session's prompts (FieldPrompt;
/// `MatrixRun` opens the answers and asks).
struct FieldOptions: ParsableArguments {
    @Flag(
        help:
            "Field session (--link remote only): before each new environment x distance, pause until the peer is placed there (Enter), skip that place (s) or stop resumably (q)."
    )
    var interactive = false

    @Option(help: "With --interactive: read the answers from FILE, or from standard input with '-' (a pipe or a script), instead of the terminal.")
    var answers: String?

    /// The checks that need the run's link (RunCommand.validate calls this).
    func validate(link: LinkMode, dryRun: Bool) throws {
        if answers != nil && !interactive { throw ValidationError("--answers needs --interactive") }
        guard interactive, !dryRun else { return }
        if link != .remote {
            throw ValidationError(
                "--interactive is for a field session with a real peer (--link remote): an \(link.rawValue) link has no peer to place")
        }
        if answers == nil && !DescriptorFieldInput.isTerminal(0) {
            throw ValidationError(
                "--interactive prompts on a terminal, and standard input is not one; give --answers - to read the answers from standard input, or --answers FILE"
            )
        }
    }
}
