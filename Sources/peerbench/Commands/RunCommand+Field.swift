import ArgumentParser
import Foundation
import PeerBenchCore
import PeerBenchPlugin

/// `run --interactive [--answers FILE|-]`: the field session's prompts (FieldPrompt).
struct FieldOptions: ParsableArguments {
    @Flag(help: "Field session (--link remote only): before each new environment x distance, pause until the peer is placed there (Enter), skip that place (s) or stop resumably (q).")
    var interactive = false

    @Option(help: "With --interactive: read the answers from FILE, or from standard input with '-' (a pipe or a script), instead of the terminal.")
    var answers: String?

    /// The checks that need the run's link (RunCommand.validate calls this).
    func validate(link: LinkMode, dryRun: Bool) throws {
        if answers != nil && !interactive { throw ValidationError("--answers needs --interactive") }
        guard interactive, !dryRun else { return }
        if link != .remote {
            throw ValidationError("--interactive is for a field session with a real peer (--link remote): an \(link.rawValue) link has no peer to place")
        }
        if answers == nil && !DescriptorFieldInput.isTerminal(0) {
            throw ValidationError("--interactive prompts on a terminal, and standard input is not one; give --answers - to read the answers from standard input, or --answers FILE")
        }
    }

    /// The prompter the runner asks before each new place; nil without --interactive.
    /// `keepAlive` runs while a question waits (the remote run's control channel).
    func prompter(keepAlive: (@Sendable () async -> Void)? = nil) throws -> FieldPrompter? {
        guard interactive else { return nil }
        var fd: Int32 = 0
        if let answers, answers != "-" {
            fd = open(answers, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw InputError(source: "--answers", "cannot open \(answers): \(String(cString: strerror(errno)))") }
        }
        return FieldPrompter(input: DescriptorFieldInput(fd: fd), keepAlive: keepAlive) { Terminal.err($0) }
    }

    /// After the run: the places skipped, and how to run them later. True when any was.
    static func reportSkips(_ summary: RunSummary, resumeCommand: String) -> Bool {
        guard summary.skippedCells > 0 else { return false }
        let places = summary.skippedSites.map(\.description).joined(separator: "; ")
        Terminal.err("peerbench: skipped \(summary.skippedCells) cell\(summary.skippedCells == 1 ? "" : "s") (\(places)): not recorded; run them later with:\n  \(resumeCommand)")
        return true
    }
}
