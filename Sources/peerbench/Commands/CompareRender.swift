import Foundation
import PeerBenchAnalysis
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// The text, markdown, CSV and JSON forms of `compare`'s documents (docs/COMPARE.md).
enum CompareRender {
    static let marks: [ComparisonDocument.Verdict: String] = [.better: "▲", .worse: "▼", .noDifference: "=", .insufficient: "?"]

    /// Pretty-printed, keys sorted: the same input gives the same bytes (docs/COMPARE.md).
    static func json<T: Encodable>(_ doc: T) throws -> String {
        try JSONCoding.encode(doc).text(.pretty, sortedKeys: true)
    }

    static func digits(_ metric: String) -> Int {
        switch ComparisonMetric(rawValue: metric) {
        case .throughputMbps: 1
        case .lossRatio: 4
        case .connectMs: 2
        case .reconnectMs: 0
        default: 3
        }
    }

    static func title(_ env: String, _ dist: String, _ payload: String) -> String {
        "\(env) · \(dist == "max" ? "max" : dist + " m") · \(payload == "-" ? "no payload" : payload + " B")"
    }

    static func interval(_ s: ComparisonDocument.MetricSummary?, _ metric: String) -> String {
        guard let s, s.median != nil else { return "-" }
        let d = digits(metric)
        let ci = s.ciLow.map { " [\(Format.number($0, digits: d)), \(Format.number(s.ciHigh, digits: d))]" } ?? ""
        return Format.number(s.median, digits: d) + ci
    }

    static func grid(_ header: [String], _ rows: [[String]], markdown: Bool) -> String {
        if markdown {
            return
                (["| " + header.joined(separator: " | ") + " |", "|" + header.map { _ in "---" }.joined(separator: "|") + "|"]
                + rows.map { "| " + $0.joined(separator: " | ") + " |" }).joined(separator: "\n")
        }
        var t = TextTable(header)
        rows.forEach { t.add($0) }
        return t.render()
    }

    /// The runs' notes, one line each, above everything else; empty without notes.
    static func notes(_ notes: [ComparisonDocument.RunNote]?, markdown: Bool) -> String {
        guard let notes else { return "" }
        return notes.map { markdown ? "**\($0.directory)**: \($0.note)  " : "run \($0.directory): \($0.note)" }.joined(separator: "\n") + "\n"
    }

    /// Whether no pair of `s` can have a verdict: too few repetitions on every side.
    static func hasNoVerdicts(_ s: ComparisonDocument.Scenario) -> Bool {
        !s.pairs.isEmpty && s.pairs.allSatisfy { $0.verdict == .insufficient }
    }

    /// Said once, above the tables, when the first scenario cannot support a verdict (a
    /// run of one repetition): why, and the command that would.
    static func noVerdictsNote(_ s: ComparisonDocument.Scenario, alpha: Double, matrixFile: String?, markdown: Bool) -> String {
        let needed = ComparisonDocument.repetitionsNeeded(alpha: alpha)
        let most = s.transports.flatMap { $0.metrics.values.map(\.n) }.max() ?? 0
        let reps = max(needed, 6)
        let command = "peerbench run \(matrixFile ?? "MATRIX.json") --repetitions \(reps) --out DIR"
        let text =
            "No verdicts in this comparison: its scenarios have at most \(most) ok repetition\(most == 1 ? "" : "s") per transport, "
            + "and a verdict needs at least \(needed) on each side at alpha \(alpha). Below are each transport's figures "
            + "(and, where one repetition has RTT probes, the within-run evidence). For verdicts with 95 % intervals run "
            + (markdown ? "`\(command)`" : command) + " and compare that run."
        return (markdown ? "> " : "note: ") + text + "\n"
    }

    /// One scenario: medians with intervals, then one verdict mark per pair and metric (left
    /// out when no pair can have a verdict: a table of question marks says nothing).
    static func table(_ s: ComparisonDocument.Scenario, markdown: Bool) -> String {
        var out: [String] = []
        let t = title(s.environment, s.distanceLabel, s.payload)
        out.append(markdown ? "### \(t)\n" : t)
        let metrics = ComparisonMetric.allCases.map(\.rawValue).filter { m in s.transports.contains { $0.metrics[m] != nil } }
        let headings = metrics.map { ComparisonMetric(rawValue: $0)!.heading }
        let rows = s.transports.map { tr in
            [tr.label, "\(tr.metrics.values.map(\.n).max() ?? 0)"] + metrics.map { interval(tr.metrics[$0], $0) }
        }
        out.append(grid(["transport", "n"] + headings, rows, markdown: markdown))
        if !s.pairs.isEmpty, !hasNoVerdicts(s) {
            out.append("")
            var pairRows: [[String]] = []
            var seen: [String] = []
            for p in s.pairs where !seen.contains(p.a + "\u{1}" + p.b) { seen.append(p.a + "\u{1}" + p.b) }
            for key in seen {
                let ab = key.split(separator: "\u{1}").map(String.init)
                pairRows.append(
                    ["\(ab[0]) vs \(ab[1])"]
                        + metrics.map { m in
                            guard let p = s.pairs.first(where: { $0.a == ab[0] && $0.b == ab[1] && $0.metric == m }) else { return "" }
                            let mark = marks[p.verdict]! + (p.reason == ComparisonFloor.belowFloor ? "f" : "")
                            return p.pAdjusted.map { "\(mark) p=\(String(format: "%.3g", $0))" } ?? mark
                        })
            }
            out.append(grid(["pair (a vs b)"] + headings, pairRows, markdown: markdown))
        }
        if let within = s.withinRun, !within.isEmpty {
            out.append("")
            out.append("within-run evidence: the RTT probes of the single repetition, these cells of one run only, not a verdict across runs")
            out.append(
                grid(
                    ["pair (a vs b)", "RTT probes", "shift ms [95 % CI]"],
                    within.map { p in
                        [
                            p.a + " vs " + p.b,
                            marks[p.verdict]! + (p.reason == ComparisonFloor.belowFloor ? "f" : "")
                                + (p.pAdjusted.map { " p=\(String(format: "%.3g", $0))" } ?? ""),
                            Format.number(p.shift, digits: 3)
                                + (p.shiftCILow.map { " [\(Format.number($0, digits: 3)), \(Format.number(p.shiftCIHigh, digits: 3))]" } ?? ""),
                        ]
                    }, markdown: markdown))
        }
        out.append("")
        return out.joined(separator: "\n")
    }

    /// What follows the scenarios: the legend and the warnings.
    static func footer(alpha: Double, floor: ComparisonFloor?, warnings: [String], markdown: Bool) -> String {
        ([legend(alpha: alpha, markdown: markdown), floorText(floor, markdown: markdown)]
            + warnings.map { (markdown ? "> **warning:** " : "warning: ") + $0 }).joined(separator: "\n")
    }

    /// The floor the verdicts applied, one line.
    static func floorText(_ f: ComparisonFloor?, markdown: Bool) -> String {
        let text: String
        if let f {
            let ms = { (x: Double) in Format.number(x, digits: 3) }
            let loop = f.transports.map { "\($0.label) \(ms($0.p50Ms))/\(ms($0.p99Ms))" }.joined(separator: ", ")
            let release =
                f.emulatorReleaseP50Ms.map { "emulator release error p50/p99 \(ms($0))/\(ms(f.emulatorReleaseP99Ms ?? $0)) ms" }
                ?? "no emulator"
            text =
                "measurement floor (from \(f.runs) manifest\(f.runs == 1 ? "" : "s")): loopback RTT p50/p99 ms \(loop.isEmpty ? "none measured" : loop); "
                + "\(release); clock \(Format.number(f.clockMs * 1e3, digits: 2)) µs. A time difference whose 95 % interval does not clear "
                + "the pair's floor (larger loopback floor + release error + clock, at p99 for RTT p99, else p50) is no difference: =f."
                + f.notes.map { " Note: \($0)." }.joined()
        } else {
            text = "measurement floor: none in the manifests (older runs); verdicts apply no floor."
        }
        return markdown ? "_\(text)_" : text
    }

    static func legend(alpha: Double, markdown: Bool) -> String {
        let needed = ComparisonDocument.repetitionsNeeded(alpha: alpha)
        let text = """
            Medians over ok repetitions, [95 % CI of the median] from 6 repetitions on. Verdict of a against b: \
            ▲ better, ▼ worse (Holm-adjusted Mann-Whitney p < \(alpha) and |Cliff's delta| >= 0.33; \
            higher is better for Mbit/s and uwb avail, lower for the rest), = no difference, \
            ? insufficient (fewer than \(needed) ok repetitions a side can never reach \(alpha)); p = adjusted p-value.
            """
        return markdown ? "_\(text)_" : "legend: " + text
    }

    static func csvField(_ s: String) -> String { RecordsCSV.quoted(s) }

    static func csvNumber(_ x: Double?) -> String { x.map { "\($0)" } ?? "" }

    static let csvHeader =
        "kind,environment,distance_label,payload,metric,a,b,n,median,ci_low,ci_high,p_value,p_adjusted,cliffs_delta,shift,shift_ci_low,shift_ci_high,verdict,floor_ms,reason"

    /// One scenario's rows of the one table: `transport` rows (n, median, interval), `pair`
    /// and `within_run` rows (test, effect, verdict).
    static func csv(_ s: ComparisonDocument.Scenario) -> String {
        var lines: [String] = []
        let head = [s.environment, s.distanceLabel, s.payload].map(csvField)
        for t in s.transports {
            for m in ComparisonMetric.allCases.map(\.rawValue) {
                guard let v = t.metrics[m] else { continue }
                lines.append(
                    (["transport"] + head + [
                        m, csvField(t.label), "", "\(v.n)", csvNumber(v.median), csvNumber(v.ciLow), csvNumber(v.ciHigh),
                        "", "", "", "", "", "", "", "", "",
                    ]).joined(separator: ","))
            }
        }
        for (kind, p) in s.pairs.map({ ("pair", $0) }) + (s.withinRun ?? []).map({ ("within_run", $0) }) {
            lines.append(
                ([kind] + head + [
                    p.metric, csvField(p.a), csvField(p.b), "", "", "", "", csvNumber(p.pValue), csvNumber(p.pAdjusted),
                    csvNumber(p.cliffsDelta), csvNumber(p.shift), csvNumber(p.shiftCILow), csvNumber(p.shiftCIHigh),
                    p.verdict.rawValue, csvNumber(p.floorMs), p.reason ?? "",
                ]).joined(separator: ","))
        }
        return lines.joined(separator: "\n")
    }

    static func percent(_ x: Double?) -> String { x.map { String(format: "%+.1f %%", $0 * 100) } ?? "-" }

    /// Per scenario: each label and metric, old and new medians, the relative change with its interval, the verdict.
    static func table(_ doc: BaselineDocument, markdown: Bool) -> String {
        var out: [String] = []
        for s in doc.scenarios {
            let t = title(s.environment, s.distanceLabel, s.payload)
            out.append(markdown ? "### \(t)\n" : t)
            let rows = s.changes.map { c in
                [
                    c.label, ComparisonMetric(rawValue: c.metric)?.heading ?? c.metric, interval(c.old, c.metric) + " (n=\(c.old.n))",
                    interval(c.new, c.metric) + " (n=\(c.new.n))",
                    percent(c.relativeChange) + (c.relativeCILow == nil ? "" : " [\(percent(c.relativeCILow)), \(percent(c.relativeCIHigh))]"),
                    c.pAdjusted.map { String(format: "%.3g", $0) } ?? "-",
                    c.verdict.rawValue + (c.reason == ComparisonFloor.belowFloor ? " (below floor \(Format.number(c.floorMs, digits: 3)) ms)" : ""),
                ]
            }
            out.append(grid(["transport", "metric", "old median", "new median", "change", "p adj", "verdict"], rows, markdown: markdown))
            out.append("")
        }
        let needed = ComparisonDocument.repetitionsNeeded(alpha: doc.alpha)
        func named(_ dir: String, _ note: String?) -> String { note.map { "\(dir) (\($0))" } ?? dir }
        let legend =
            "\(named(doc.new, doc.newNote)) against \(named(doc.old, doc.oldNote)). change = Hodges-Lehmann shift new - old over the old median, [95 % interval]; "
            + "improved/regressed: Holm-adjusted Mann-Whitney p < \(doc.alpha) and |Cliff's delta| >= 0.33; "
            + "insufficient: fewer than \(needed) ok repetitions a side."
        out.append(markdown ? "_\(legend)_" : "legend: " + legend)
        out.append(floorText(doc.measurementFloor, markdown: markdown))
        out += doc.warnings.map { (markdown ? "> **warning:** " : "warning: ") + $0 }
        return out.joined(separator: "\n")
    }

    /// The Markdown a CI step summary or a pull request comment shows (`--baseline ...
    /// --format markdown`): one line of counts, the changes that matter (significant and,
    /// with thresholds, past them) in one table, and every scenario's table folded below.
    static func markdown(_ doc: BaselineDocument) -> String {
        let all = doc.scenarios.flatMap { s in s.changes.map { (scenario: s, change: $0) } }
        let thresholded = all.contains { $0.change.pastThreshold != nil }
        let notable = all.filter { ($0.change.verdict == .regressed || $0.change.verdict == .improved) && $0.change.pastThreshold ?? true }
        func n(_ v: BaselineDocument.Verdict) -> Int { notable.filter { $0.change.verdict == v }.count }
        func plural(_ k: Int, _ word: String) -> String { "\(k) \(word)\(k == 1 ? "" : "s")" }
        let past = thresholded ? " past the thresholds" : ""
        let within = all.filter { $0.change.pastThreshold == false && ($0.change.verdict == .regressed || $0.change.verdict == .improved) }.count
        var counts =
            "**\(plural(n(.regressed), "regression"))**, \(plural(n(.improved), "improvement"))\(past); "
            + "\(all.filter { $0.change.verdict == .unchanged }.count) unchanged"
        if within > 0 { counts += ", \(within) significant but within the thresholds" }
        let insufficient = all.filter { $0.change.verdict == .insufficient }.count
        if insufficient > 0 { counts += ", \(insufficient) insufficient (too few repetitions)" }
        var out = ["## PeerBench: `\(doc.new)` against `\(doc.old)`", ""]
        for (dir, note) in [(doc.new, doc.newNote), (doc.old, doc.oldNote)] {
            if let note { out.append("**\(dir)**: \(note)  ") }
        }
        if doc.newNote != nil || doc.oldNote != nil { out.append("") }
        out.append(counts + ".")
        if !notable.isEmpty {
            let rows = notable.sorted { ($0.change.verdict == .regressed ? 0 : 1) < ($1.change.verdict == .regressed ? 0 : 1) }.map { s, c in
                [
                    (c.verdict == .regressed ? "🔴 " : "🟢 ") + c.verdict.rawValue, title(s.environment, s.distanceLabel, s.payload), c.label,
                    ComparisonMetric(rawValue: c.metric)?.heading ?? c.metric, interval(c.old, c.metric), interval(c.new, c.metric),
                    percent(c.relativeChange), c.pAdjusted.map { String(format: "%.3g", $0) } ?? "-",
                ]
            }
            out += ["", grid(["", "scenario", "transport", "metric", "old median", "new median", "change", "p adj"], rows, markdown: true)]
        }
        out += ["", "<details><summary>Every scenario</summary>", "", table(doc, markdown: true), "", "</details>"]
        return out.joined(separator: "\n")
    }

    static func csv(_ doc: BaselineDocument) -> String {
        var lines = [
            "environment,distance_label,payload,label,metric,old_n,old_median,new_n,new_median,relative_change,relative_ci_low,relative_ci_high,p_value,p_adjusted,cliffs_delta,verdict,floor_ms,reason"
        ]
        for s in doc.scenarios {
            for c in s.changes {
                lines.append(
                    ([s.environment, s.distanceLabel, s.payload, c.label].map(csvField)
                        + [
                            c.metric, "\(c.old.n)", csvNumber(c.old.median), "\(c.new.n)", csvNumber(c.new.median), csvNumber(c.relativeChange),
                            csvNumber(c.relativeCILow), csvNumber(c.relativeCIHigh), csvNumber(c.pValue), csvNumber(c.pAdjusted),
                            csvNumber(c.cliffsDelta), c.verdict.rawValue, csvNumber(c.floorMs), c.reason ?? "",
                        ]).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n")
    }
}
