import ArgumentParser
import Foundation
import PeerBenchCore

/// The stop signals of `run`, caught before the run creates anything.
///
/// Why from the very start: a Ctrl-C, SIGTERM or SIGHUP in the first milliseconds used
/// to end the runner by the signal's default action, with no message, no manifest and
/// namespaces half made. Now the first signal only stops the run (`MatrixRun.stop`); it
/// notices at its next step (before the first cell, or in the running cell) and ends
/// as `interrupted` with the resume command. A second signal exits at once, after
/// `MatrixRun.abandon` has cleaned up whatever exists so far.
enum RunSignals {
    /// The signals a run treats as "stop": Ctrl-C, a scheduler's SIGTERM, and a closed
    /// terminal or SSH session (SIGHUP).
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handlers; `cancel()` the result once the run has wrapped up.
    static func trap(_ run: MatrixRun, terminal: RunTerminal) -> InterruptTrap {
        InterruptTrap(
            signals: signals,
            onFirst: { sig in
                Terminal.err("\npeerbench: \(InterruptTrap.name(sig)) received: stopping after cleaning up the current cell (again to exit at once)")
                run.stop()
            },
            onSecond: { sig in
                run.abandon()
                let next = terminal.resumeCommand.map { " Resume with:\n  \($0)" } ?? " The run had not started; nothing was recorded."
                Terminal.err("peerbench: \(InterruptTrap.name(sig)) again: exiting now.\(next)")
                _exit(ExitStatus.interrupted.rawValue)
            })
    }
}
