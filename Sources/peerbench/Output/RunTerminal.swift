import Foundation
import PeerBenchCore
import PeerBenchPlugin
import Synchronization

/// `run` on the terminal: turns what a `MatrixRun` reports into lines on standard
/// error (the progress through `ProgressPrinter`), and its outcome into the closing
/// message and exit status (RunTerminal+Outcome). Knows the resume command once the
/// run has a folder, for every message that offers it.
final class RunTerminal: RunReporter {
    /// The options the resume command repeats, and how much to print.
    struct Settings: Sendable {
        var quiet = false
        var verbose = false
        var interactive = false
        var isolation: Isolation = .process
        var peer: String?
        var pskFile: String?
    }
    let settings: Settings

    private struct State {
        var printer: ProgressPrinter?
        var resumeCommand: String?
    }
    private let state = Mutex(State())

    init(_ settings: Settings) { self.settings = settings }

    /// The command that continues this run; nil until it has a folder.
    var resumeCommand: String? { state.withLock { $0.resumeCommand } }

    func report(_ event: RunEvent) {
        switch event {
        case .warning(let w): Terminal.err("peerbench: warning: \(w)")
        case .prepared(let point):
            let command = Self.resumeCommand(point, settings)
            state.withLock { $0.resumeCommand = command }
        case .starting(let start): if !settings.quiet { Terminal.err(Self.startLine(start)) }
        case .measuringFloor(let emulator):
            if !settings.quiet {
                Terminal.err("peerbench: measuring the measurement floor (clock, loopback RTT per transport\(emulator ? ", emulator timing" : ""))")
            }
        case .cellsStarting(let estimates, let recorded):
            guard !settings.quiet else { return }
            let printer = ProgressPrinter(
                estimates: estimates, alreadyRecorded: recorded,
                live: Terminal.stderrIsTerminal && !settings.interactive, verbose: settings.verbose)
            state.withLock { $0.printer = printer }
        case .cellsEnded: state.withLock { $0.printer }?.stop()
        case .prompt(let line): Terminal.err(line)
        }
    }

    func cellStarted(index: Int, total: Int, cell: Cell) {
        printer?.cellStarted(index: index, total: total, cell: cell)
    }

    func cellFinished(index: Int, total: Int, cell: Cell, record: Record) {
        printer?.cellFinished(index: index, total: total, cell: cell, record: record)
    }

    func cellInterrupted(index: Int, total: Int, cell: Cell) {
        printer?.cellInterrupted(index: index, total: total, cell: cell)
    }

    private var printer: ProgressPrinter? { state.withLock { $0.printer } }

    /// `peerbench: 12 cells (3 already recorded) of field-study over link 'emulated', isolated in a worker process, into out`.
    static func startLine(_ s: RunStart) -> String {
        let skipped = s.alreadyRecorded > 0 ? " (\(s.alreadyRecorded) already recorded)" : ""
        let auto = s.plan.matrix.autoRepetitions.map { " at most (auto repetitions: " + autoText($0) + ")" } ?? ""
        return
            "peerbench: \(s.pending) cells\(auto)\(skipped) of \(s.plan.matrix.name)\(s.plan.options.shard.map { " shard \($0)" } ?? "") over link '\(s.link.rawValue)', \(s.isolation == .process ? "isolated in a worker process" : "in process"), into \(s.folder)"
    }

    /// The command that continues the run, ready to paste.
    static func resumeCommand(_ point: RunResumePoint, _ s: Settings) -> String {
        var cmd = ["peerbench", "run", point.matrixFile, "--resume", point.folder]
        if s.isolation != .process { cmd += ["--isolation", s.isolation.rawValue] }
        if s.interactive { cmd += ["--interactive"] }
        if point.link == .remote { cmd += ["--peer", s.peer ?? "HOST", "--psk-file", s.pskFile ?? "FILE"] }
        return cmd.map(shellQuoted).joined(separator: " ")
    }

    /// `6-20 repetitions per scenario until every interval is within 5 % of its median`.
    static func autoText(_ rule: AutoRepetitions) -> String {
        "\(rule.min)-\(rule.max) repetitions per scenario until every interval is within \(Format.number(rule.precision * 100, digits: 1)) % of its median"
    }
}

/// Quotes a word for a POSIX shell when it needs it, so a printed command can be pasted.
func shellQuoted(_ s: String) -> String {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%")
    if !s.isEmpty && s.allSatisfy({ safe.contains($0) }) { return s }
    return "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
