import Foundation
import PeerBenchJSON
import PeerBenchPlugin

/// Measured cell times of a past run of the same matrix (`validate`/`run
/// --calibrate-from DIR`, or the folder a `run --resume` continues): a measured cell is estimated at
/// what it took; every other cell at the model times the ratio of measured to
/// modelled time over the measured cells (the machine's speed, its load).
///
/// Never used for the shard deal, which must not depend on the machine.
public struct CostCalibration: Sendable {
    /// Where the measurements come from (a run folder), for the estimate's basis.
    public var source: String
    /// Seconds of the last record of each measured cell (`total_seconds`).
    public var measured: [CellKey: Double]
    /// Sum of measured over sum of modelled seconds of the measured cells; 1 when none.
    public var ratio: Double

    /// From a run's records; `model` gives the modelled seconds of a cell key of this
    /// matrix (nil for a key the matrix does not have: that record is ignored).
    public init(records: [Record], source: String, model: (CellKey) -> Double?) {
        self.source = source
        var measured: [CellKey: Double] = [:]
        for (key, r) in JournalIndex(records: records).last {
            guard r.totalSeconds >= 0, model(key.cell) != nil else { continue }
            measured[key.cell] = r.totalSeconds
        }
        self.measured = measured
        let modelled = measured.keys.reduce(0) { $0 + (model($1) ?? 0) }
        let actual = measured.values.reduce(0, +)
        ratio = modelled > 0 && actual > 0 ? actual / modelled : 1
    }

    /// Seconds of `cell`: measured, or modelled x ratio.
    public func seconds(_ cell: Cell, modelled: Double) -> Double { measured[cell.key] ?? modelled * ratio }
}

extension RunPlan {
    /// Estimates from now on use the measured cell times of the run in `dir` (the
    /// `--out` folder of a past run), which must be a run of this matrix. `option`
    /// names the argument in errors.
    public mutating func calibrate(fromRunFolder dir: String, option: String = "--calibrate-from") throws(InputError) {
        let manifestPath = dir + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifestPath), let manifest = try? JSONParser.parse(Array(data)) else {
            throw InputError(source: option, "\(manifestPath) is missing or not JSON; give the --out folder of a past run of this matrix")
        }
        guard manifest["matrix_hash"]?.stringValue == matrix.hash else {
            throw InputError(
                source: option,
                "\(dir) is a run of another matrix (matrix_hash \(manifest["matrix_hash"]?.compactText ?? "none"), this one is \(matrix.hash)); its cell times do not apply"
            )
        }
        calibrate(from: RunDirectory.readJournal(at: dir + "/records.jsonl").records, source: dir)
    }

    /// Estimates from now on use the measured times of `records` (a past run of this
    /// matrix, read from `source`).
    public mutating func calibrate(from records: [Record], source: String) {
        var byKey: [CellKey: Cell] = [:]
        for c in matrix.cells(seed: options.seed, repetitions: options.repetitions) { byKey[c.key] = c }
        let model = costModel
        let links = self
        calibration = CostCalibration(records: records, source: source) { key in
            byKey[key].map { model.seconds($0, link: links.link(for: $0)) }
        }
    }

    /// One line on what the estimates rest on, for `validate` and `run --dry-run`.
    public var estimateBasis: String {
        let model =
            "cost model (set-up \(CellCost.setUpSeconds) s, handshake, rttProbes x RTT with loss (pipelined: one RTT plus the probes' serialisation or their rttProbeIntervalMs spacing; none in cells rttPayloads leaves out), bulk at the link's usable rate, capped at the cell timeout; plugins' own estimates where given)"
        guard let c = calibration, !c.measured.isEmpty else {
            if let c = calibration { return model + "; \(c.source) has no measured cell of this matrix" }
            return model
        }
        return
            "measured in \(c.source) for \(c.measured.count) cells; the others at the \(model) x \(String(format: "%.2f", c.ratio)) (measured / modelled there)"
    }
}
