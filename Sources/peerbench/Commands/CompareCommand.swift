import ArgumentParser
import Foundation
import PeerBenchCore

struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Transports head-to-head per environment x distance x payload, from one or more run folders.",
        discussion: "Figures are medians over repetitions of cells that ended ok or partial; '*' marks the best transport of each metric."
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case text, markdown }

    @Argument(help: "Run folders (each with records.jsonl).")
    var dirs: [String]

    @Option(help: "Output format: text or markdown.")
    var format: OutputFormat = .text

    func validate() throws {
        if dirs.isEmpty { throw ValidationError("give at least one run folder") }
    }

    func run() async throws {
        var records: [JSONValue] = []
        for dir in dirs {
            let path = dir + "/records.jsonl"
            guard FileManager.default.fileExists(atPath: path) else {
                Terminal.error("\(dir): no records.jsonl here (is it a folder written by peerbench run --out?)")
                throw ExitStatus.badInput
            }
            let journal = RunDirectory.readJournal(at: path)
            if journal.torn != nil { Terminal.err("peerbench: warning: \(path): skipped a torn last line") }
            records += journal.records.map(\.json)
        }
        guard !records.isEmpty else {
            Terminal.error("no records in \(dirs.joined(separator: ", "))")
            throw ExitStatus.badInput
        }
        let comparison = Comparison(records: records)
        Terminal.out(CompareCommand.render(comparison, markdown: format == .markdown))
    }

    static func render(_ c: Comparison, markdown: Bool) -> String {
        var out: [String] = []
        for g in c.groups {
            let title = "\(g.environment) · \(g.distanceLabel == "max" ? "max" : g.distanceLabel + " m") · \(g.payload == "-" ? "no payload" : g.payload + " B")"
            out.append(markdown ? "### \(title)\n" : title)
            let header = ["transport", "cells ok", "Mbit/s", "RTT p50 ms", "RTT p99 ms", "jitter ms", "loss %"]
            var rows: [[String]] = []
            for r in g.rows {
                func mark(_ s: String, _ best: String?) -> String { best == r.label ? s + " *" : s }
                rows.append([r.label, "\(r.ok)/\(r.runs)",
                             mark(Format.number(r.throughputMbps, digits: 1), g.bestThroughput),
                             mark(Format.number(r.rttP50, digits: 3), g.bestRTT),
                             Format.number(r.rttP99, digits: 3),
                             mark(Format.number(r.jitterMs, digits: 3), g.bestJitter),
                             mark(Format.number(r.lossRatio.map { $0 * 100 }, digits: 2), g.bestLoss)])
            }
            if markdown {
                out.append("| " + header.joined(separator: " | ") + " |")
                out.append("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
                out += rows.map { "| " + $0.joined(separator: " | ") + " |" }
            } else {
                var t = TextTable(header)
                rows.forEach { t.add($0) }
                out.append(t.render())
            }
            out.append("")
        }
        return out.joined(separator: "\n")
    }
}
