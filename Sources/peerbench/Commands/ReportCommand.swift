import ArgumentParser
import PeerBenchAnalysis
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "An offline HTML report with figures, from one or more run folders.",
        discussion: """
            Writes FILE.html (self-contained: opens from a file with no network) and FILE-figures/ beside it with \
            every figure as NAME.vl.json (its Vega-Lite spec), NAME.svg and NAME.png, plus comparison.json. \
            Needs Python 3 with vl-convert-python (scripts/setup.sh installs it). See docs/REPORT.md.
            """
    )

    @Argument(help: "Run folders (each with records.jsonl; samples.jsonl and manifest.json are read when present).")
    var dirs: [String]

    @Option(help: "The HTML file to write; figures go to a folder named after it with -figures.")
    var out: String

    @Option(help: "Significance level of the verdicts.")
    var alpha: Double = 0.05

    @Option(
        name: .customLong("measured"),
        help: ArgumentHelp(
            "Draw these field measurements (the study's CSV format) beside the runs as box plots; repeat for more files.", valueName: "FILE.csv"))
    var measured: [String] = []

    @Option(
        name: .customLong("measured-map"),
        help: ArgumentHelp("With --measured: the JSON mapping of places, transports and distance labels (docs/COMPARE.md).", valueName: "MAP.json"))
    var measuredMap: String?

    func validate() throws {
        if measuredMap != nil, measured.isEmpty { throw ValidationError("--measured-map needs --measured FILE.csv") }
        if dirs.isEmpty { throw ValidationError("give at least one run folder") }
        if !(alpha > 0 && alpha < 1) { throw ValidationError("--alpha must be between 0 and 1 (got \(alpha))") }
    }

    func run() async throws {
        var comparison: MeasuredComparison?
        if !measured.isEmpty {
            do throws(InputError) {
                let mapping = try MeasuredMapping.load(path: measuredMap)
                comparison = try MeasuredComparison.load(runDirectories: dirs, measuredFiles: measured, mapping: mapping)
            } catch {
                throw fail(error)
            }
        }
        let written: ReportWriter.Written
        do { written = try ReportWriter.write(directories: dirs, page: out, alpha: alpha, measured: comparison) } catch {
            Terminal.error(error.description)
            throw ExitStatus.badInput
        }
        for w in written.warnings { Terminal.err("peerbench: warning: \(w)") }
        for (name, why) in written.missing { Terminal.err("peerbench: \(name): not drawn: \(why)") }
        Terminal.err("peerbench: wrote \(written.page) (\(written.cells) cells, \(written.drawn.count) figures) and \(written.figureFolder)/")
    }
}
