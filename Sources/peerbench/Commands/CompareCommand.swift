import ArgumentParser
import Foundation
import PeerBenchAnalysis
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Transports head-to-head per environment x distance x payload, with tests and verdicts; or one run against a baseline.",
        discussion: """
            Per scenario and transport: the median over ok repetitions with its 95 % interval. Per pair and \
            metric: a two-sided Mann-Whitney U test (Holm-adjusted), Cliff's delta, the Hodges-Lehmann shift \
            and a verdict. With --baseline OLD NEW: each label of NEW against itself in OLD. With --measured FILE.csv: \
            the runs against field measurements in the 2025 field study's CSV format (medians, quartiles, inside or not). \
            See docs/COMPARE.md.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case text, markdown, csv, json }

    @Argument(help: "Run folders (each with records.jsonl); with --baseline, the one new run.")
    var dirs: [String]

    @Option(help: "Output format: text, markdown, csv or json.")
    var format: OutputFormat = .text

    @Option(help: "Significance level of the verdicts (0 < A < 1).")
    var alpha: Double = 0.05

    @Option(
        name: .customLong("baseline"),
        help: ArgumentHelp(
            "Compare each label of the new run with itself in this earlier run of the same matrix: a run folder, or a name saved with `peerbench baseline save`.",
            valueName: "OLD"))
    var baseline: String?

    @Option(
        name: .customLong("baselines-dir"),
        help: ArgumentHelp("With --baseline NAME: where named baselines are kept (default \(BaselineStore.defaultDirectory)).", valueName: "DIR"))
    var baselinesDir: String?

    @Option(help: ArgumentHelp("With --baseline: exit 1 when a significant regression exceeds this many percent.", valueName: "PCT"))
    var failOnRegression: Double?

    @Option(
        help: ArgumentHelp(
            "With --baseline: per-metric thresholds (JSON, docs/COMPARE.md); exit 1 when a significant regression is past its threshold.",
            valueName: "FILE"))
    var thresholds: String?

    @Flag(help: "With --thresholds or --fail-on-regression: a significant improvement past its threshold fails too (the baseline wants refreshing).")
    var failOnImprovement = false

    @Option(
        name: .customLong("measured"),
        help: ArgumentHelp(
            "Compare the runs with the field measurements in this CSV file (the study's RTT or transfer kind); repeat for more files.",
            valueName: "FILE.csv"))
    var measured: [String] = []

    @Option(
        name: .customLong("measured-map"),
        help: ArgumentHelp(
            "With --measured: a JSON file mapping the CSV's places, transports and distance labels to the records' (default: the 2025 field study's).",
            valueName: "MAP.json"))
    var measuredMap: String?

    func validate() throws {
        if measuredMap != nil, measured.isEmpty { throw ValidationError("--measured-map needs --measured FILE.csv") }
        if !measured.isEmpty {
            if baseline != nil { throw ValidationError("--measured and --baseline are two different comparisons; give one") }
            if format == .csv { throw ValidationError("--measured writes text, markdown or json, not csv") }
        }
        if dirs.isEmpty { throw ValidationError("give at least one run folder") }
        if !(alpha > 0 && alpha < 1) { throw ValidationError("--alpha must lie between 0 and 1, got \(alpha)") }
        if baseline != nil, dirs.count != 1 { throw ValidationError("--baseline OLD_DIR takes exactly one new run folder, got \(dirs.count)") }
        if let p = failOnRegression {
            if baseline == nil { throw ValidationError("--fail-on-regression needs --baseline OLD") }
            if !(p >= 0) { throw ValidationError("--fail-on-regression must be a percentage of 0 or more, got \(p)") }
            if thresholds != nil {
                throw ValidationError(
                    "give --thresholds FILE or --fail-on-regression PCT, not both (PCT is a thresholds file of {\"default\": {\"percent\": PCT}})")
            }
        }
        if thresholds != nil, baseline == nil { throw ValidationError("--thresholds needs --baseline OLD") }
        if baselinesDir != nil, baseline == nil { throw ValidationError("--baselines-dir needs --baseline NAME") }
        if failOnImprovement, thresholds == nil, failOnRegression == nil {
            throw ValidationError("--fail-on-improvement needs --thresholds FILE or --fail-on-regression PCT (what counts as past the threshold)")
        }
    }

    func run() async throws {
        if let baseline { return try runBaseline(old: baseline, new: dirs[0]) }
        if !measured.isEmpty { return try runMeasured() }
        // Each scenario is written as soon as it is built: memory holds one scenario's output.
        var json = ComparisonDocument.JSONStream(alpha: alpha)
        let notes = ComparisonDocument.RunNote.of(dirs)
        json.notes = notes
        if format == .csv { Terminal.out(CompareRender.csvHeader) }
        let warnings: [String]
        var floor: ComparisonFloor?
        var first = true, noted = false
        var output = OutputBuffer()
        do {
            // Each scenario's text is made on every core; it is written here, in order.
            let render: @Sendable (ComparisonDocument.Scenario) -> Rendered = { [format] s in
                switch format {
                case .json: Rendered(scenario: s, json: ComparisonDocument.JSONStream.render(s))
                case .csv: Rendered(scenario: s, text: CompareRender.csv(s))
                case .text, .markdown: Rendered(scenario: s, text: CompareRender.table(s, markdown: format == .markdown))
                }
            }
            warnings = try ComparisonDocument.stream(
                runDirectories: dirs, alpha: alpha,
                floor: {
                    floor = $0
                    json.floor = $0
                },
                render: render
            ) { r in
                defer { first = false }
                switch format {
                case .json: output.append(try json.scenario(r.json))
                case .csv: Terminal.out(r.text)
                case .text, .markdown:
                    if first, notes != nil { Terminal.out(CompareRender.notes(notes, markdown: format == .markdown)) }
                    if first, CompareRender.hasNoVerdicts(r.scenario) {
                        Terminal.out(CompareRender.noVerdictsNote(r.scenario, alpha: alpha, matrixFile: matrixFile(), markdown: format == .markdown))
                        noted = true
                    }
                    Terminal.out(r.text)
                }
            }
        } catch let e as InputError {
            output.flush()
            throw fail(e)
        }
        switch format {
        case .json:
            output.append(try json.end(warnings: warnings))
            output.flush()
        case .csv: break
        case .text, .markdown:
            // The note above the tables already said it: the warning would say it twice.
            let shown = noted ? warnings.filter { !$0.hasPrefix(ComparisonDocument.tooFewRepetitionsWarning) } : warnings
            Terminal.out(CompareRender.footer(alpha: alpha, floor: floor, warnings: shown, markdown: format == .markdown))
        }
        if format == .json || format == .csv { warnings.forEach { Terminal.err("peerbench: warning: \($0)") } }
    }

    /// One scenario and its output, made off the writing thread.
    struct Rendered: Sendable {
        var scenario: ComparisonDocument.Scenario
        var text = ""
        var json: [UInt8] = []
    }

    /// The matrix file the first run was made from (its manifest), for the command a note suggests.
    func matrixFile() -> String? {
        (try? RunDirectory(path: dirs[0]).readManifest())??.matrixFile
    }

    func runBaseline(old: String, new: String) throws {
        var doc: BaselineDocument
        let limits: Thresholds?
        do {
            let store = BaselineStore(directory: baselinesDir ?? BaselineStore.defaultDirectory)
            doc = try BaselineDocument.load(old: try store.resolve(old), new: new, alpha: alpha)
            limits = try thresholds.map { path throws(InputError) in try Thresholds.load(path: path) } ?? failOnRegression.map(Thresholds.percent)
        } catch {
            throw fail(error)
        }
        if let limits { doc = doc.applying(limits) }
        switch format {
        case .json: Terminal.out(try CompareRender.json(doc))
        case .csv: Terminal.out(CompareRender.csv(doc))
        case .markdown: Terminal.out(CompareRender.markdown(doc))
        case .text: Terminal.out(CompareRender.table(doc, markdown: false))
        }
        if format == .json || format == .csv { doc.warnings.forEach { Terminal.err("peerbench: warning: \($0)") } }
        guard limits != nil else { return }
        let regressed = doc.past(.regressed), improved = doc.past(.improved)
        for (kind, list) in [("regression", regressed), ("improvement", improved)] {
            for (s, c) in list {
                let size = c.relativeChange.map { String(format: "%+.1f %%", $0 * 100) } ?? "from a median of 0"
                Terminal.err(
                    "peerbench: \(kind): \(s.environment) · \(s.distanceLabel) · \(s.payload) · \(c.label) · \(c.metric): \(size) (p adjusted \(Format.number(c.pAdjusted, digits: 4)))"
                )
            }
        }
        let what = thresholds.map { "past the thresholds of \($0)" } ?? "beyond \(Format.number(failOnRegression, digits: 1)) %"
        func count(_ n: Int, _ word: String) -> String { "\(n) significant \(word)\(n == 1 ? "" : "s")" }
        if !improved.isEmpty {
            Terminal.err(
                "peerbench: \(count(improved.count, "improvement")) \(what)"
                    + (failOnImprovement ? "" : "; the baseline may want refreshing (--fail-on-improvement fails on these)"))
        }
        if !regressed.isEmpty { Terminal.err("peerbench: \(count(regressed.count, "regression")) \(what)") }
        if !regressed.isEmpty || (failOnImprovement && !improved.isEmpty) { throw ExitStatus.cellsNotOK }
    }

    /// The runs against field measurements: tables (or the JSON document) on stdout; with
    /// json, the warnings also go to stderr, one line each, as for the other comparisons.
    func runMeasured() throws {
        let doc: MeasuredDocument
        do throws(InputError) {
            let mapping = try MeasuredMapping.load(path: measuredMap)
            doc = MeasuredDocument(try MeasuredComparison.load(runDirectories: dirs, measuredFiles: measured, mapping: mapping))
        } catch {
            throw fail(error)
        }
        switch format {
        case .json:
            do { Terminal.out(try JSONCoding.encode(doc).text(.pretty)) } catch {
                Terminal.error("cannot encode the comparison: \(error)")
                throw ExitStatus.badInput
            }
            doc.warnings.forEach { Terminal.err("peerbench: warning: \($0)") }
        case .text, .markdown, .csv: Terminal.out(MeasuredRender.text(doc, markdown: format == .markdown))
        }
    }
}
