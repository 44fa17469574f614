import ArgumentParser
import Foundation
import Logging
import PeerBenchCore

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run every cell of a matrix and record one line per cell.",
        discussion: "Writes OUT/records.jsonl (flushed after every cell), OUT/manifest.json and OUT/records.csv."
    )

    @OptionGroup var matrixArgument: MatrixArgument

    @Option(help: "Output folder for records.jsonl, manifest.json and records.csv (created if missing).")
    var out: String

    @Option(help: "Run only these transports, by label, comma-separated (e.g. tcp,udp).")
    var transports: String?

    @Option(help: "How client and server are joined: 'emulated' (namespaces + link emulator) or 'none' (loopback).")
    var link: LinkMode = .none

    @Option(help: "Run seed; overrides the matrix's \"seed\". Same seed, same emulated link traces.")
    var seed: UInt64?

    @Option(help: "Repetitions of every cell; overrides the matrix's \"repetitions\".")
    var repetitions: Int?

    @Option(name: .customLong("cell-timeout"), help: "Seconds a cell may take before it is stopped and recorded as timeout.")
    var cellTimeout: Double?

    @Flag(help: "Print only the final summary and errors.")
    var quiet = false

    @Flag(help: "Print debug logging from the runner and plugins.")
    var verbose = false

    func validate() throws {
        if let r = repetitions, r < 1 { throw ValidationError("--repetitions must be at least 1, got \(r)") }
        if let t = cellTimeout, !(t > 0) { throw ValidationError("--cell-timeout must be a number of seconds above 0, got \(t)") }
        if link == .remote { throw ValidationError("--link remote is not available yet; use emulated or none") }
        if let t = transports, t.split(separator: ",").isEmpty { throw ValidationError("--transports needs at least one label") }
    }

    func run() async throws {
        let registry = Wiring.registry
        let linkModel = Wiring.linkModel
        let options = RunOptions(
            matrixFile: matrixArgument.matrix, commandLine: CommandLine.arguments,
            transports: transports.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } },
            seed: seed, repetitions: repetitions, cellTimeoutSeconds: cellTimeout)
        let plan: RunPlan
        let dir: RunDirectory
        do {
            let matrix = try MatrixLoader(registry: registry, linkModel: linkModel).load(path: matrixArgument.matrix)
            plan = try RunPlan(matrix: matrix, options: options, linkModel: linkModel)
            dir = try RunDirectory.create(out, for: plan.matrix)
        } catch let e as InputError {
            throw fail(e)
        }

        let testbed: any Testbed
        do { testbed = try Wiring.makeTestbed(link) } catch let e as InputError { throw fail(e) } catch {
            Terminal.error("cannot set up the \(link.rawValue) link: \(error)")
            throw ExitStatus.testbed
        }

        var logger = Logger(label: "peerbench")
        logger.logLevel = verbose ? .debug : .warning
        let runID = RunCommand.makeRunID()
        let startedAt = Date()
        let versions = Wiring.libraryVersions
        try dir.writeManifest(Manifest.make(runID: runID, plan: plan, linkMode: testbed.mode, startedAt: startedAt,
                                            endedAt: nil, status: "running", summary: nil, versions: versions))
        if !quiet {
            Terminal.err("peerbench: \(plan.cells.count) cells of \(plan.matrix.name) over link '\(testbed.mode.rawValue)' into \(out)")
        }
        let runner = Runner(registry: registry, testbed: testbed, logger: logger)
        let summary: RunSummary
        do {
            summary = try await runner.run(plan, runID: runID, into: dir, observer: quiet ? nil : ProgressPrinter())
        } catch {
            await testbed.shutdown()
            Terminal.error("cannot write to \(dir.journalPath): \(error); the records written so far are kept")
            throw ExitStatus.badInput
        }
        await testbed.shutdown()
        try dir.writeManifest(Manifest.make(runID: runID, plan: plan, linkMode: testbed.mode, startedAt: startedAt,
                                            endedAt: Date(), status: "finished", summary: summary, versions: versions))
        try dir.exportCSV()

        let counts = CellStatus.allCases.compactMap { s in summary.byStatus[s].map { "\($0) \(s.rawValue)" } }
        Terminal.err("peerbench: \(summary.total) cells: \(counts.joined(separator: ", ")). Records: \(dir.journalPath)")
        if summary.notOK > 0 { throw ExitStatus.cellsNotOK }
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
