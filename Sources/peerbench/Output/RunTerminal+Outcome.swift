import ArgumentParser
import PeerBenchCore
import PeerBenchPlugin

extension RunTerminal {
    /// Prints how the run ended and throws its exit status (returns for 0). The exit
    /// statuses are documented in README, `peerbench --help` and docs/UNATTENDED.md.
    func finish(_ outcome: RunOutcome) throws {
        let resume = resumeCommand ?? ""
        switch outcome {
        case .planned(let plan, let pending, let recorded):
            DryRun.print(plan: plan, pending: pending, recorded: recorded)
        case .badInput(let e):
            throw fail(e)
        case .testbedUnavailable(let mode, let error):
            Terminal.error("cannot set up the \(mode.rawValue) link: \(error)")
            throw ExitStatus.testbed
        case .notStarted(let error):
            Terminal.error("\(error); nothing was run")
            throw ExitStatus.cannotWrite
        case .stopped(let error):
            Terminal.error("\(error); the run stopped, the records written before are kept (resume it with: \(resume))")
            throw ExitStatus.cannotWrite
        case .unfinished(let error, let journal):
            Terminal.error("\(error); every record is in \(journal) (resume the run to write it again: \(resume))")
            throw ExitStatus.cannotWrite
        case .testbedLost(let reason, let cells):
            Terminal.error(
                "\(reason); the run stopped after \(cells) cells this time (records kept). Once the peer serves again, resume with:\n  \(resume)")
            throw ExitStatus.testbed
        case .ended(let ending):
            try finish(ending, resume: resume)
        }
    }

    /// The run's closing lines: the places skipped, then the interruption, or the counts
    /// and the auto-repetition outcome.
    private func finish(_ e: RunEnding, resume: String) throws {
        let skipped = Self.reportSkips(e.session, resumeCommand: resume)
        if e.session.interrupted {
            let stopped = e.session.interruptedCell.map { " (\($0.summary) was stopped and will run again)" } ?? ""
            Terminal.err(
                "peerbench: interrupted: \(e.session.total) cells recorded this time, \(e.cellsLeft) still to run\(stopped). Resume with:\n  \(resume)"
            )
            throw ExitStatus.interrupted
        }
        let counts = CellStatus.allCases.compactMap { s in e.whole.byStatus[s].map { "\($0) \(s.rawValue)" } }
        Terminal.err("peerbench: \(e.whole.total) cells: \(counts.joined(separator: ", ")). Records: \(e.journalPath)")
        if let report = e.autoRepetitions { Terminal.err("peerbench: " + Self.autoOutcome(report, settledCells: e.session.settledCells)) }
        if e.whole.notOK > 0 || skipped { throw ExitStatus.cellsNotOK }
    }

    /// After a field session: the places skipped, and how to run them later. True when any was.
    static func reportSkips(_ summary: RunSummary, resumeCommand: String) -> Bool {
        guard summary.skippedCells > 0 else { return false }
        let places = summary.skippedSites.map(\.description).joined(separator: "; ")
        Terminal.err(
            "peerbench: skipped \(summary.skippedCells) cell\(summary.skippedCells == 1 ? "" : "s") (\(places)): not recorded; run them later with:\n  \(resumeCommand)"
        )
        return true
    }

    /// How the scenarios of an auto-repetition run ended, one line.
    static func autoOutcome(_ report: AutoRepetitions.Report, settledCells: Int) -> String {
        let precise = report.scenarios.filter { $0.stopped == "precise" }
        let reps = precise.map(\.repetitions)
        let range = reps.isEmpty ? "" : " after \(reps.min()!)\(reps.min() == reps.max() ? "" : "-\(reps.max()!)") repetitions"
        let atMax = report.scenarios.filter { $0.stopped == "max" }.count
        return "auto repetitions: \(precise.count) of \(report.scenarios.count) scenarios precise\(range), \(atMax) ran to \(report.max) "
            + "(manifest auto_repetitions); \(settledCells) cells were not needed"
    }
}

extension ExitStatus {
    /// The run could not write its folder (disk full, I/O error): not bad input (2),
    /// not a testbed problem (3). README and docs/UNATTENDED.md list it.
    static let cannotWrite = ExitCode(4)
}
