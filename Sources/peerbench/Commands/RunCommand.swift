import ArgumentParser
import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed
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

    @Flag(
        name: .customLong("retry-failed"),
        help: "With --resume: also rerun the cells whose last record failed or timed out (earlier records are kept).")
    var retryFailed = false

    @Flag(name: .customLong("dry-run"), help: "List the cells that would run, with estimated durations, and run nothing.")
    var dryRun = false

    @Option(
        name: .customLong("calibrate-from"),
        help:
            "A past run folder of this matrix: estimate (--dry-run, the progress ETA) its cells at the times measured there, and the others at the cost model scaled to this machine. On --resume, the resumed run's own times win."
    )
    var calibrateFrom: String?

    @Option(
        help:
            "Cell order: interleaved (transports alternate per environment x distance x payload; default), sequential (one transport after another) or shuffled (by the run seed); overrides the matrix's \"order\"."
    )
    var order: CellOrder?

    @Option(help: "Run only shard K of N (K/N, counting from 1): a deterministic, disjoint share of the cells, for several machines.")
    var shard: String?

    @Option(
        help:
            "Where plugins run: 'process' (a supervised worker process: a crashing cell is recorded as failed and the run goes on) or 'none' (in this process)."
    )
    var isolation: Isolation = .process

    @Option(help: "Run only these transports, by label, comma-separated (e.g. tcp,udp).")
    var transports: String?

    @Option(
        help:
            "How client and server are joined: 'emulated' (namespaces + link emulator), 'none' (loopback) or 'remote' (a second host running 'peerbench serve'; needs --peer and --psk-file). Default for a new run: \(RunCommand.defaultLink.rawValue); on resume, the run's own."
    )
    var link: LinkMode?

    @Option(
        help:
            "With --link remote: the host running 'peerbench serve', as HOST[:PORT] or [IPv6]:PORT (default port \(ServeLimits.defaultPort)), or auto / auto:NAME to find it by DNS-SD ('serve --advertise')."
    )
    var peer: String?

    @Option(name: .customLong("psk-file"), help: "With --link remote: the pre-shared key file both hosts hold ('peerbench psk new FILE').")
    var pskFile: String?

    /// The link this invocation will use, known before the run folder is opened and
    /// locked: --link, else a resumed run's own, else the default.
    var intendedLink: LinkMode {
        if let link { return link }
        if let resume, let data = FileManager.default.contents(atPath: resume + "/manifest.json"),
            let mode = (try? JSONParser.parse(Array(data)))?["link_mode"]?.stringValue.flatMap(LinkMode.init(rawValue:))
        {
            return mode
        }
        return RunCommand.defaultLink
    }

    /// The link of a new run without --link. (Optional above so that resume can tell
    /// "not given" from "given".)
    static let defaultLink: LinkMode = .emulated

    @Option(help: "Run seed; overrides the matrix's \"seed\". Same seed, same emulated link traces.")
    var seed: UInt64?

    @Option(
        help: ArgumentHelp(
            "Repetitions of every cell, or auto[:MAX]: each scenario until every compared metric's 95 % interval is within the matrix's \"repetitionPrecision\" (default 5 %) of its median, 6 to MAX (default 20); overrides the matrix's \"repetitions\".",
            valueName: "N|auto[:MAX]"))
    var repetitions: RepetitionsArgument?

    @Option(
        help: ArgumentHelp(
            "A one-line note kept in the manifest and shown by compare, baseline list and report (which run is which, months later); at most 200 characters. On --resume it replaces the run's note.",
            valueName: "TEXT"))
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
        // A closed stderr (SIGHUP's lost terminal) must not end the wrap-up by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let terminal = RunTerminal(terminalSettings)
        let registry = Wiring.registry
        let session = MatrixRun(
            request, registry: registry, linkModel: Wiring.linkModel,
            testbeds: WiredTestbeds(registry: registry, peer: peer, pskFile: pskFile, quiet: quiet),
            judge: Wiring.repetitionJudge, reporter: terminal, logger: logger)
        // Stop signals are caught before the run creates anything (see RunSignals).
        let trap = dryRun ? nil : RunSignals.trap(session, terminal: terminal)
        let outcome = try await session.run()
        // Only now: a signal during the wrap-up still went through the handlers.
        trap?.cancel()
        try terminal.finish(outcome)
    }
}
