import ArgumentParser
import PeerBenchCore

extension ExitStatus {
    /// The run was stopped by SIGINT or SIGTERM; resume it with the printed command.
    static let interrupted = ExitCode(130)
}

/// `run --dry-run`: the cells that would run, in run order, with estimates.
enum DryRun {
    static func print(plan: RunPlan, pending: [Cell], recorded: Int) {
        let estimates = plan.estimates(of: pending)
        var t = TextTable(["#", "cell", "key", "estimate"])
        for (i, (cell, est)) in zip(pending, estimates).enumerated() {
            t.add([String(i + 1), cell.summary, cell.key.description, Format.seconds(est)])
        }
        if !pending.isEmpty { Terminal.out(t.render()) }
        var head = "\(pending.count) cells to run"
        if recorded > 0 { head += " (\(recorded) already recorded, skipped)" }
        if let s = plan.options.shard { head += ", shard \(s) of a \(plan.matrixCellCount)-cell matrix" }
        head += ", order \(plan.order.rawValue)"
        let total = estimates.reduce(0, +)
        Terminal.out(
            "\(head); estimated duration \(Format.duration(total)) (at most \(Format.duration(Double(pending.count) * plan.matrix.cellTimeoutSeconds)) if every cell hit its \(Format.number(plan.matrix.cellTimeoutSeconds, digits: 0)) s timeout)"
        )
        Terminal.out("estimate basis: \(plan.estimateBasis)")
    }
}

extension Format {
    /// Short durations for per-cell figures: "0.12 s", "3.4 s", "2 min 5 s".
    static func seconds(_ s: Double) -> String {
        if s < 1 { return String(format: "%.2f s", s) }
        if s < 60 { return String(format: "%.1f s", s) }
        return duration(s)
    }
}
