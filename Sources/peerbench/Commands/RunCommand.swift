import ArgumentParser
import Foundation
import LinkEmulation
import Logging
import PeerBenchAnalysis
import PeerBenchCore
import PeerBenchPlugin
import RemoteLink

extension CellOrder: ExpressibleByArgument {}
extension Isolation: ExpressibleByArgument {}

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run every cell of a matrix and record one line per cell.",
        discussion: """
            Writes OUT/records.jsonl (flushed after every cell), OUT/samples.jsonl (raw probes and series), OUT/manifest.json and OUT/records.csv. \
            Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the run cleanly and prints the command that resumes it; \
            a second one exits at once. See docs/UNATTENDED.md.
            """
    )

    @Argument(help: "The matrix file (default ./matrix.json; with --resume, the run's own matrix file as named in its manifest).")
    var matrix: String?

    @Option(help: "Output folder for records.jsonl, manifest.json and records.csv (created if missing).")
    var out: String?

    @Option(help: "Continue the run in this folder: cells already recorded are skipped, a torn last line is set aside.")
    var resume: String?

    @Flag(name: .customLong("retry-failed"), help: "With --resume: also rerun the cells whose last record failed or timed out (earlier records are kept).")
    var retryFailed = false

    @Flag(name: .customLong("dry-run"), help: "List the cells that would run, with estimated durations, and run nothing.")
    var dryRun = false

    @Option(name: .customLong("calibrate-from"), help: "A past run folder of this matrix: estimate (--dry-run, the progress ETA) its cells at the times measured there, and the others at the cost model scaled to this machine. On --resume, the resumed run's own times win.")
    var calibrateFrom: String?

    @Option(help: "Cell order: interleaved (transports alternate per environment x distance x payload; default), sequential (one transport after another) or shuffled (by the run seed); overrides the matrix's \"order\".")
    var order: CellOrder?

    @Option(help: "Run only shard K of N (K/N, counting from 1): a deterministic, disjoint share of the cells, for several machines.")
    var shard: String?

    @Option(help: "Where plugins run: 'process' (a supervised worker process: a crashing cell is recorded as failed and the run goes on) or 'none' (in this process).")
    var isolation: Isolation = .process

    @Option(help: "Run only these transports, by label, comma-separated (e.g. tcp,udp).")
    var transports: String?

    @Option(help: "How client and server are joined: 'emulated' (namespaces + link emulator), 'none' (loopback) or 'remote' (a second host running 'peerbench serve'; needs --peer and --psk-file). Default for a new run: \(RunCommand.defaultLink.rawValue); on resume, the run's own.")
    var link: LinkMode?

    @Option(help: "With --link remote: the host running 'peerbench serve', as HOST[:PORT] or [IPv6]:PORT (default port \(ServeLimits.defaultPort)), or auto / auto:NAME to find it by DNS-SD ('serve --advertise').")
    var peer: String?

    @Option(name: .customLong("psk-file"), help: "With --link remote: the pre-shared key file both hosts hold ('peerbench psk new FILE').")
    var pskFile: String?

    /// The link this invocation will use, known before the run folder is opened and
    /// locked: --link, else a resumed run's own, else the default.
    var intendedLink: LinkMode {
        if let link { return link }
        if let resume, let data = FileManager.default.contents(atPath: resume + "/manifest.json"),
           let mode = (try? JSONParser.parse(Array(data)))?["link_mode"]?.stringValue.flatMap(LinkMode.init(rawValue:)) {
            return mode
        }
        return RunCommand.defaultLink
    }

    /// The link of a new run without --link. (Optional above so that resume can tell
    /// "not given" from "given".)
    static let defaultLink: LinkMode = .emulated

    @Option(help: "Run seed; overrides the matrix's \"seed\". Same seed, same emulated link traces.")
    var seed: UInt64?

    @Option(help: ArgumentHelp("Repetitions of every cell, or auto[:MAX]: each scenario until every compared metric's 95 % interval is within the matrix's \"repetitionPrecision\" (default 5 %) of its median, 6 to MAX (default 20); overrides the matrix's \"repetitions\".", valueName: "N|auto[:MAX]"))
    var repetitions: RepetitionsArgument?

    @Option(help: ArgumentHelp("A one-line note kept in the manifest and shown by compare, baseline list and report (which run is which, months later); at most 200 characters. On --resume it replaces the run's note.", valueName: "TEXT"))
    var note: String?

    @Option(name: .customLong("cell-timeout"), help: "Seconds a cell may take before it is stopped and recorded as timeout.")
    var cellTimeout: Double?

    @OptionGroup var field: FieldOptions

    @Flag(help: "Print only the final summary and errors.")
    var quiet = false

    @Flag(help: "Print debug logging from the runner and plugins.")
    var verbose = false

    func validate() throws {
        if case .invalid(let problem)? = repetitions { throw ValidationError("--repetitions \(problem)") }
        if let n = note, let problem = Manifest.noteProblem(n) { throw ValidationError("--note \(problem)") }
        if let t = cellTimeout, !(t > 0) { throw ValidationError("--cell-timeout must be a number of seconds above 0, got \(t)") }
        if intendedLink == .remote && !dryRun {
            if peer == nil { throw ValidationError("--link remote needs --peer HOST[:PORT], the host running 'peerbench serve'") }
            if pskFile == nil { throw ValidationError("--link remote needs --psk-file FILE, the key 'peerbench serve' was started with") }
        } else if intendedLink != .remote && (peer != nil || pskFile != nil) {
            throw ValidationError("--peer and --psk-file are for --link remote (this run's link is \(intendedLink.rawValue))")
        }
        if let t = transports, t.split(separator: ",").isEmpty { throw ValidationError("--transports needs at least one label") }
        if out != nil && resume != nil { throw ValidationError("give either --out (a new run) or --resume (continue a run), not both") }
        if out == nil && resume == nil && !dryRun { throw ValidationError("give --out DIR for a new run, or --resume DIR to continue one") }
        if retryFailed && resume == nil { throw ValidationError("--retry-failed needs --resume DIR (the run whose failed cells to rerun)") }
        if let s = shard { do { _ = try Shard(parsing: s) } catch { throw ValidationError(error.description) } }
        try field.validate(link: intendedLink, dryRun: dryRun)
    }

    func run() async throws {
        if !dryRun { UnprivilegedLink.reexecIfPossible(linkMode: intendedLink) }
        // Stop signals are caught before anything is created (see RunInterrupt), and a
        // closed stderr (SIGHUP's lost terminal) must not end the wrap-up by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let interrupt = RunInterrupt()
        let trap = dryRun ? nil : interrupt.trap()
        let registry = Wiring.registry
        let linkModel = Wiring.linkModel
        let setup: RunSetup
        do { setup = try RunSetup.prepare(self, registry: registry, linkModel: linkModel) } catch let e as InputError { throw fail(e) }
        for w in setup.warnings { Terminal.err("peerbench: warning: \(w)") }
        let plan = setup.plan
        if dryRun {
            DryRun.print(plan: plan, pending: setup.pending, recorded: setup.alreadyRecorded)
            return
        }
        let dir = setup.dir!
        let resumeCommand = setup.resumeCommand
        interrupt.attach(resumeCommand: resumeCommand)
        if setup.linkMode == .emulated && EmulatedTestbed.hasNetAdmin {
            let removed = EmulatedTestbed.removeLeftovers()
            if !removed.isEmpty {
                Terminal.err("peerbench: removed \(removed.count) network namespace\(removed.count == 1 ? "" : "s") left by runs that were killed: \(removed.joined(separator: ", "))")
            }
        }
        let testbed: any Testbed
        do {
            testbed = setup.linkMode == .remote
                ? try await RemoteRun.connect(peer: peer!, pskFile: pskFile!, registry: registry, plan: plan, quiet: quiet)
                : try Wiring.makeTestbed(setup.linkMode)
        } catch let e as InputError { throw fail(e) } catch {
            Terminal.error("cannot set up the \(setup.linkMode.rawValue) link: \(error)")
            throw ExitStatus.testbed
        }
        interrupt.attach(testbed: testbed)

        var logger = Logger(label: "peerbench")
        logger.logLevel = verbose ? .debug : .warning
        let worker = isolation == .process ? WorkerProcess(arguments: ["cell-worker"] + (verbose ? ["--verbose"] : [])) : nil
        interrupt.attach(worker: worker)
        let prompter: FieldPrompter?
        var keepAlive: (@Sendable () async -> Void)?
        if let remote = testbed as? RemoteTestbed { keepAlive = { await remote.keepAlive() } }
        do { prompter = try field.prompter(keepAlive: keepAlive) } catch let e as InputError {
            await testbed.shutdown()
            throw fail(e)
        }
        let runner = Runner(registry: registry, testbed: testbed, logger: logger, worker: worker, stopper: interrupt.stopper,
                            fieldPrompter: prompter)
        // Auto repetitions: a resumed run's records are judged before its first cell.
        let judge = plan.matrix.autoRepetitions.map {
            AutoRepetitionJudge(rule: $0, cells: plan.cells, records: ManifestBook.ownRecords(dir: dir, plan: plan, runID: setup.runID))
        }
        let book = ManifestBook(dir: dir, plan: plan, setup: setup, linkMode: testbed.mode, isolation: isolation,
                                versions: Wiring.libraryVersions, commandLine: CommandLine.arguments, judge: judge)
        interrupt.attach(book: book)
        do { try book.write(status: "running", ended: false) } catch {
            await testbed.shutdown()
            Terminal.error("\(error); nothing was run")
            throw ExitStatus.cannotWrite
        }
        if !quiet {
            let skipped = setup.alreadyRecorded > 0 ? " (\(setup.alreadyRecorded) already recorded)" : ""
            let auto = plan.matrix.autoRepetitions.map { " at most (auto repetitions: " + Self.autoText($0) + ")" } ?? ""
            Terminal.err("peerbench: \(setup.pending.count) cells\(auto)\(skipped) of \(plan.matrix.name)\(plan.options.shard.map { " shard \($0)" } ?? "") over link '\(testbed.mode.rawValue)', \(isolation == .process ? "isolated in a worker process" : "in process"), into \(dir.path)")
        }
        // The floor is measured once the stop signals are handled, so an interrupt
        // stops it too; the manifest is written again with it.
        book.measurementFloor = await FloorProbe.measure(plan: plan, testbed: testbed, quiet: quiet) { runner.stopper.hasFired }
        judge?.measured(book.measurementFloor)
        try? book.write(status: "running", ended: false)
        let estimates = plan.estimates(of: setup.pending)
        let printer = quiet ? nil : ProgressPrinter(estimates: estimates, alreadyRecorded: setup.alreadyRecorded, live: Terminal.stderrIsTerminal && !field.interactive, verbose: verbose)
        let summary: RunSummary
        do {
            summary = try await runner.run(plan, cells: setup.pending, runID: setup.runID, into: dir, observer: printer, judge: book.judge)
        } catch {
            worker?.killNow()
            await testbed.shutdown()
            printer?.stop()
            // The reserve makes room for this last manifest on a full disk.
            dir.releaseReserve()
            try? book.write(status: "failed", ended: true)
            trap?.cancel()
            Terminal.error("\(error); the run stopped, the records written before are kept (resume it with: \(resumeCommand))")
            throw ExitStatus.cannotWrite
        }
        printer?.stop()
        await testbed.shutdown()
        book.interruptedCell = summary.interruptedCell
        // Freed before the last writes, so a disk that filled up still takes them.
        dir.releaseReserve()
        do {
            try book.write(status: summary.interrupted ? "interrupted" : "finished", ended: true)
            try dir.exportCSV(run: (setup.runID, Set(plan.cells.map(\.key))))
        } catch {
            trap?.cancel()
            Terminal.error("\(error); every record is in \(dir.journalPath) (resume the run to write it again: \(resumeCommand))")
            throw ExitStatus.cannotWrite
        }
        // Only now: a signal during the wrap-up still goes through the handlers above.
        trap?.cancel()

        if let lost = summary.testbedLost {
            Terminal.error("\(lost); the run stopped after \(summary.total) cells this time (records kept). Once the peer serves again, resume with:\n  \(resumeCommand)")
            throw ExitStatus.testbed
        }
        let skipped = FieldOptions.reportSkips(summary, resumeCommand: resumeCommand)
        let whole = book.wholeRunSummary()
        let counts = CellStatus.allCases.compactMap { s in whole.byStatus[s].map { "\($0) \(s.rawValue)" } }
        if summary.interrupted {
            let left = plan.cells.count - whole.total
            Terminal.err("peerbench: interrupted: \(summary.total) cells recorded this time, \(left) still to run\(summary.interruptedCell.map { " (\($0.summary) was stopped and will run again)" } ?? ""). Resume with:\n  \(resumeCommand)")
            throw ExitStatus.interrupted
        }
        Terminal.err("peerbench: \(whole.total) cells: \(counts.joined(separator: ", ")). Records: \(dir.journalPath)")
        if let report = book.judge?.report { Terminal.err("peerbench: " + Self.autoOutcome(report, settledCells: summary.settledCells)) }
        if whole.notOK > 0 || skipped { throw ExitStatus.cellsNotOK }
    }

    /// `6-20 repetitions per scenario until every interval is within 5 % of its median`.
    static func autoText(_ rule: AutoRepetitions) -> String {
        "\(rule.min)-\(rule.max) repetitions per scenario until every interval is within \(Format.number(rule.precision * 100, digits: 1)) % of its median"
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

    static func makeRunID() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return f.string(from: Date()) + "-" + String(repeating: "0", count: 8 - suffix.count) + suffix
    }
}

extension ExitStatus {
    /// The run could not write its folder (disk full, I/O error): not bad input (2),
    /// not a testbed problem (3). README and docs/UNATTENDED.md list it.
    static let cannotWrite = ExitCode(4)
}
