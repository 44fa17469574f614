import ArgumentParser
import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a matrix file; print its cell count, estimated duration and the resolved link of every environment x distance.",
        discussion:
            "Exits 0 when the matrix is valid; otherwise prints one line per problem, naming the file and the JSON path, and exits 2. A record's link.energy_mj and link.radio_on_fraction are estimates from a radio power model (see peerbench list), not measurements."
    )

    @OptionGroup var matrixArgument: MatrixArgument

    @Option(help: "Also show how run --shard K/N would split the matrix into N shards: cells and estimated time of each.")
    var shards: Int?

    @Option(
        name: .customLong("calibrate-from"),
        help:
            "A past run folder of this matrix: estimate its cells at the times measured there, and the others at the cost model scaled to this machine."
    )
    var calibrateFrom: String?

    func validate() throws {
        if let shards, shards < 1 { throw ValidationError("--shards: expected a number of shards of at least 1, got \(shards)") }
    }

    func run() async throws {
        let registry = Wiring.registry
        let linkModel = Wiring.linkModel
        var plan: RunPlan
        do {
            let matrix = try MatrixLoader(registry: registry, linkModel: linkModel).load(path: matrixArgument.matrix)
            plan = try RunPlan(
                matrix: matrix, options: RunOptions(matrixFile: matrixArgument.matrix, commandLine: []), linkModel: linkModel,
                registry: registry)
            if let dir = calibrateFrom { try plan.calibrate(fromRunFolder: dir) }
        } catch let e as InputError {
            throw fail(e)
        }
        let m = plan.matrix
        Terminal.out("\(matrixArgument.matrix): valid (\(m.hash))")
        Terminal.out("  name: \(m.name)")
        Terminal.out(
            "  transports: \(m.transports.map { "\($0.label) (\($0.plugin))" }.joined(separator: ", "))"
                + (m.transportsAtOnce ? "; at once over one link per block (transportsAtOnce)" : ""))
        Terminal.out(
            "  matrix: \(m.environments.count) environments x \(m.distances.count) distances x \(m.payloads.count) payloads (\(m.counts.count) counts x \(m.sizes.count) sizes)"
                + (m.scenarios.count > 1 || !m.scenarios[0].isStatic ? " x \(m.scenarios.count) scenarios" : ""))
        if !m.workloads[0].isDefault {
            Terminal.out("  workloads (docs/WORKLOADS.md): " + m.workloads.map(\.summary).joined(separator: "; "))
        }
        var probing = ""
        if let only = m.rttPayloads {
            let lists = [
                only.counts.map { "counts \($0.sorted().map(String.init).joined(separator: ", "))" },
                only.sizes.map { "sizes \($0.sorted().map(String.init).joined(separator: ", "))" },
            ].compactMap { $0 }
            probing =
                ", in \(plan.cells.filter { m.rttProbes(for: $0) > 0 }.count) of \(plan.cells.count) cells (rttPayloads: \(lists.joined(separator: "; ")))"
        }
        Terminal.out("  rtt probes: \(m.rttProbes), \(m.rttMethod.name)\(probing)")
        if !m.appLoop.isNone {
            Terminal.out(
                "  app loop: \(Double(m.appLoop.sendNanos) / 1_000) µs to send, \(Double(m.appLoop.receiveNanos) / 1_000) µs to receive a message (tcp, tls, udp, quic)"
            )
        }
        let perRep = plan.cells.count / m.repetitions
        let estimate = plan.estimatedSeconds()
        if let auto = m.autoRepetitions {
            // Every scenario runs MIN rounds and at most MAX: the estimate is a range.
            let least = estimate * Double(auto.min) / Double(auto.max)
            Terminal.out(
                "  cells: \(perRep * auto.min) to \(plan.cells.count) (\(perRep) per repetition x auto repetitions: \(RunTerminal.autoText(auto)))")
            Terminal.out(
                "  estimated duration: \(Format.duration(least)) to \(Format.duration(estimate)) (\(Int(least.rounded()))-\(Int(estimate.rounded())) s; cell timeout \(Format.number(m.cellTimeoutSeconds, digits: 0)) s)"
            )
        } else {
            Terminal.out("  cells: \(plan.cells.count) (\(perRep) per repetition x \(m.repetitions) repetition\(m.repetitions == 1 ? "" : "s"))")
            Terminal.out(
                "  estimated duration: \(Format.duration(estimate)) (\(Int(estimate.rounded())) s; cell timeout \(Format.number(m.cellTimeoutSeconds, digits: 0)) s)"
            )
        }
        Terminal.out("  estimate basis: \(plan.estimateBasis)")
        Terminal.out("")
        Terminal.out("Resolved link per environment x distance:")
        var table = TextTable([
            "environment", "distance", "m", "RSSI dBm", "SNR dB", "MCS", "PHY Mbit/s", "rate Mbit/s", "delay ms", "jitter ms", "loss %", "MTU",
        ])
        for env in m.environments {
            for d in m.distances {
                // Scenarios change the link over time, not its resolved summary: any one shows it.
                let l = plan.links[RunPlan.linkKey(env, d, m.scenarios[0])]!
                table.add([
                    env.name, d.label, Format.number(l.distanceMeters, digits: 1), Format.number(l.rssiDbm, digits: 1),
                    Format.number(l.snrDb, digits: 1), l.mcs.map(String.init) ?? "-", Format.number(l.phyRateMbps, digits: 1),
                    Format.number(l.rateMbps, digits: 1), Format.number(l.delayMs, digits: 2), Format.number(l.jitterMs, digits: 2),
                    Format.number(l.lossPercent, digits: 2) + (l.connected ? "" : " (no link)"), l.mtu.map(String.init) ?? "-",
                ])
            }
        }
        Terminal.out(table.render())
        printScenarios(plan)
        if let shards { printShards(plan, shards) }
    }

    /// Each shard's cells and estimated time, and the makespan against a deal by count.
    private func printShards(_ plan: RunPlan, _ n: Int) {
        let balance = plan.shardBalance(shards: n)
        Terminal.out("")
        Terminal.out("Shards (run --shard K/\(n)), balanced by estimated time:")
        var t = TextTable(["shard", "cells", "estimated"])
        for (i, (cells, secs)) in zip(balance.shardCellCounts, balance.shardSeconds).enumerated() {
            t.add(["\(i + 1)/\(n)", String(cells), Format.duration(secs)])
        }
        Terminal.out(t.render())
        let longest = balance.shardSeconds.max() ?? 0
        let byCount = balance.countBasedShardSeconds
        Terminal.out(
            "  longest shard: \(Format.duration(longest)), shortest \(Format.duration(balance.shardSeconds.min() ?? 0))"
                + " (dealt by count: longest \(Format.duration(byCount.max() ?? 0)), shortest \(Format.duration(byCount.min() ?? 0)))")
        Terminal.out(
            "  Slurm --time: \(SlurmTime.limit(forSeconds: longest)) (the longest shard x \(SlurmTime.margin) + \(Int(SlurmTime.extraSeconds / 60)) min; the shard estimates use the cost model, never a calibration)"
        )
    }
}

/// The `--time` to give a Slurm array job whose longest shard is estimated at
/// `seconds`: estimates are within 0.8-1.25 of the real run on a quiet machine
/// (docs/UNATTENDED.md), so x1.5 covers that and a loaded node; +10 min covers the
/// job's start and the clean stop after SIGTERM.
enum SlurmTime {
    static let margin = 1.5
    static let extraSeconds = 600.0

    /// `H:MM:SS`, rounded up to the minute.
    static func limit(forSeconds seconds: Double) -> String {
        let minutes = Int((seconds * margin + extraSeconds) / 60 + 0.999)
        return String(format: "%d:%02d:00", minutes / 60, minutes % 60)
    }
}
