import Dispatch
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import Synchronization

/// Everything a stop signal needs, at whatever stage the run is: installed before the
/// run folder, the testbed or the worker exist, and told about each as it appears.
///
/// Why from the very start: a Ctrl-C, SIGTERM or SIGHUP in the first milliseconds used
/// to end the runner by the signal's default action, with no message, no manifest and
/// namespaces half made. Now the first signal only fires `stopper`; the run then
/// notices it at its next step (before the first cell, or in the running cell) and
/// ends as `interrupted` with the resume command. A second signal exits at once with
/// whatever exists so far.
final class RunInterrupt: Sendable {
    /// Fired by the first signal; the runner stops the running cell and starts no other.
    let stopper = CellStopper()

    private struct Parts {
        var worker: WorkerProcess?
        var book: ManifestBook?
        var testbed: (any Testbed)?
        var resumeCommand: String?
    }
    private let parts = Mutex(Parts())

    /// The signals a run treats as "stop": Ctrl-C, a scheduler's SIGTERM, and a closed
    /// terminal or SSH session (SIGHUP).
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    func attach(resumeCommand: String) { parts.withLock { $0.resumeCommand = resumeCommand } }
    func attach(testbed: any Testbed) { parts.withLock { $0.testbed = testbed } }
    func attach(worker: WorkerProcess?) { parts.withLock { $0.worker = worker } }
    func attach(book: ManifestBook) { parts.withLock { $0.book = book } }

    /// Installs the handlers; `cancel()` the result once the run has wrapped up.
    func trap() -> InterruptTrap {
        InterruptTrap(signals: Self.signals, onFirst: { [self] sig in
            Terminal.err("\npeerbench: \(InterruptTrap.name(sig)) received: stopping after cleaning up the current cell (again to exit at once)")
            stopper.fire()
        }, onSecond: { [self] sig in
            let p = parts.withLock { $0 }
            // Exit at once. The journal is valid: each record is one write, already
            // flushed. Only the manifest and the worker need a moment.
            p.worker?.killNow()
            try? p.book?.write(status: "interrupted", ended: true)
            if let testbed = p.testbed {
                // Namespaces outlive the process; give their removal a moment, no more.
                // (Their reaper removes them anyway once this process is gone.)
                let cleaned = DispatchSemaphore(value: 0)
                Task { await testbed.shutdown(); cleaned.signal() }
                _ = cleaned.wait(timeout: .now() + 2)
            }
            let next = p.resumeCommand.map { " Resume with:\n  \($0)" } ?? " The run had not started; nothing was recorded."
            Terminal.err("peerbench: \(InterruptTrap.name(sig)) again: exiting now.\(next)")
            _exit(130)
        })
    }
}
