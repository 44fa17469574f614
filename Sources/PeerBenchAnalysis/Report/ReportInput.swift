import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// Reads run folders (records.jsonl, manifest.json, samples.jsonl when present) into
/// `ReportData`, one line at a time: memory grows with the number of cells by about a
/// hundred bytes each, never with the size of the files. The same pass gathers what the
/// comparison the report draws is built from: each record is read once.
public enum ReportInput {
    /// Reads `directories` in order: the report's cells and, from the same lines, the
    /// numbers of the comparison it draws. Throws a `ReportError` naming the folder or
    /// file when a folder is missing, has no records.jsonl, or a record line (other than
    /// a torn last line) is not a record.
    static func read(_ directories: [String]) throws(ReportError) -> (data: ReportData, comparison: ComparisonData) {
        var data = ReportData()
        var comparison = ComparisonData()
        for dir in directories {
            try readRun(dir, into: &data, comparison: &comparison)
        }
        guard data.cellCount > 0 else {
            throw ReportError("no records in \(directories.joined(separator: ", "))")
        }
        addMixedRunWarnings(&data)
        do { try comparison.finish(runDirectories: directories) } catch {
            throw ReportError(error.description)
        }
        return (data, comparison)
    }

    static func readRun(_ dir: String, into data: inout ReportData, comparison: inout ComparisonData) throws(ReportError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else {
            throw ReportError("\(dir): no such folder")
        }
        guard isDir.boolValue else { throw ReportError("\(dir): not a folder (give the run folder written by peerbench run --out)") }
        let journal = dir + "/records.jsonl"
        guard FileManager.default.fileExists(atPath: journal) else {
            throw ReportError("\(dir): no records.jsonl here (is it a folder written by peerbench run --out?)")
        }
        var run = ReportData.Run(directory: dir)
        let manifestPath = dir + "/manifest.json"
        if let bytes = FileManager.default.contents(atPath: manifestPath) {
            do { run.manifest = try JSONParser.parse(Array(bytes)) } catch {
                data.warnings.append("\(manifestPath): \(error.description); the run's manifest is not shown")
            }
        } else {
            data.warnings.append("\(dir): no manifest.json; versions, seed and command line of this run are unknown")
        }
        let runIndex = data.runs.count
        data.runs.append(run)
        comparison.addManifest(of: dir)
        try readRecords(journal, run: runIndex, into: &data, comparison: &comparison)
        let samples = dir + "/samples.jsonl"
        if FileManager.default.fileExists(atPath: samples) {
            data.runs[runIndex].samplesJoined = try readSamples(samples, into: &data)
        }
        let r = data.runs[runIndex]
        // cells_total counts cell x repetition, as records do (one per finished cell).
        if let total = r.manifest?["cells_total"]?.intValue, r.records < total {
            data.warnings.append("\(dir): \(total - r.records) of \(total) cells have no record (run interrupted, or still running)")
        }
    }

    static func readRecords(_ path: String, run: Int, into data: inout ReportData, comparison: inout ComparisonData) throws(ReportError) {
        var pendingError: String?
        var refused: ReportError?
        let opened: Bool
        do {
            // Lines are decoded on every core, then added in file order.
            opened = try JournalLines.forEach(
                path: path,
                decode: { line in
                    Result { () throws(RecordLine.Problem) in
                        let record = try RecordLine(line)
                        let compared = try ComparedRecord(record)
                        return (record, compared)
                    }
                }
            ) { (result, number) throws(InputError) in
                guard refused == nil else { return }
                // A line that does not parse is only acceptable as the last one (torn by a crash).
                if let e = pendingError {
                    refused = ReportError(e)
                    return
                }
                switch result {
                case .success(let (record, compared)):
                    add(record, MetricValues(compared.values), run: run, into: &data)
                    do throws(InputError) { try comparison.add(compared, source: "\(path) line \(number)") } catch {
                        refused = ReportError(error.description)
                    }
                case .failure(.syntax(let e)): pendingError = "\(path) line \(number): \(e.description)"
                case .failure(let problem): refused = ReportError("\(path) line \(number): " + Self.notARecord(problem))
                }
            }
        } catch {
            throw ReportError(error.description)
        }
        if let refused { throw refused }
        guard opened else { throw ReportError("\(path): cannot be read") }
        if let e = pendingError {
            data.warnings.append("\(e) (a torn last line, skipped)")
        }
    }

    /// Why a line that is JSON is not a record this version reads.
    static func notARecord(_ problem: RecordLine.Problem) -> String {
        switch problem {
        case .notAnObject, .syntax: "not a record (expected a JSON object)"
        case .schema(let s?): "schema \(s), this peerbench reads \(Record.currentSchema)"
        case .schema(nil): "not a \(Record.currentSchema) record: $.schema: missing"
        case .field(let f): "not a \(Record.currentSchema) record: \(f)"
        }
    }

    static func add(_ r: RecordLine, _ values: MetricValues, run: Int, into data: inout ReportData) {
        let payload = r.payload.map { "\($0.count)x\($0.size)" } ?? "-"
        let scenario = ReportData.Scenario(environment: r.environment + r.workloadSuffix, distanceLabel: r.distanceLabel, payload: payload)
        let s = data.scenarioID(scenario, distanceMeters: r.distanceM)
        let label = r.label
        let t = data.transportID(label)
        let status = r.status.rawValue
        let usable = r.status == .ok || r.status == .partial
        if !data.linkModes.contains(r.linkMode) { data.linkModes.append(r.linkMode) }
        var failure: Int?
        if !usable {
            if data.failures.count < ReportData.maxFailuresListed {
                failure = data.failures.count
                data.failures.append(
                    .init(
                        run: r.runID, scenario: scenario.title, transport: label, repetition: r.repetition,
                        status: status, error: r.error ?? ""))
            } else {
                data.failuresNotListed += 1
            }
        }
        let cell = ReportData.Cell(scenario: s, transport: t, usable: usable, values: values, failure: failure)
        let key = r.digest
        data.runs[run].records += 1
        if let i = data.keyIndex[key] {
            // A rerun (--retry-failed) appends a newer record of the same cell: the last one counts.
            data.cells[i] = cell
            data.runs[run].records -= 1
        } else {
            data.keyIndex[key] = data.cells.count
            data.cells.append(cell)
        }
    }

    /// Folds samples.jsonl into the RTT histograms and bulk series; returns how many
    /// lines joined a usable record. Bad lines are skipped with a warning: samples
    /// are optional material, the records stand without them.
    static func readSamples(_ path: String, into data: inout ReportData) throws(ReportError) -> Int {
        var joined = 0, unjoined = 0, bad = 0
        let opened: Bool
        do {
            opened = try JournalLines.forEach(
                path: path,
                decode: { line in
                    Result { () throws(SamplesLine.Problem) in try SamplesLine(line) }
                }
            ) { (decoded, number) throws(InputError) in
                let s: SamplesLine
                switch decoded {
                case .success(let samples): s = samples
                case .failure(let error):
                    bad += 1
                    if bad == 1 { data.warnings.append("\(path) line \(number): not a samples line, skipped (\(error))") }
                    return
                }
                guard let i = data.keyIndex[s.digest] else {
                    unjoined += 1
                    return
                }
                if fold(s, cell: data.cells[i], into: &data) { joined += 1 }
            }
        } catch {
            throw ReportError(error.description)
        }
        guard opened else { throw ReportError("\(path): cannot be read") }
        if bad > 1 { data.warnings.append("\(path): \(bad) lines were not samples lines and were skipped") }
        if unjoined > 0 { data.warnings.append("\(path): \(unjoined) samples lines match no record (run_id, cell_id, repetition) and were ignored") }
        return joined
    }

    /// Adds one samples line to its cell's RTT histogram and bulk series; false when the
    /// cell's record is not usable.
    static func fold(_ s: SamplesLine, cell: ReportData.Cell, into data: inout ReportData) -> Bool {
        // Samples of a failed attempt would mix into the distribution of the cell's final, usable record.
        guard cell.usable else { return false }
        if !s.rttNanos.isEmpty {
            let key = ReportData.ScenarioTransport(scenario: cell.scenario, transport: cell.transport)
            // In place: a copy out of the dictionary and back would copy its 4.8 kB per line.
            for ns in s.rttNanos { data.rtt[key, default: LogHistogram()].add(ns) }
        }
        if let b = s.bulkSeries, !b.bytes.isEmpty {
            if data.series.count < ReportData.maxSeries {
                let seconds = Double(b.intervalNanos) / 1e9
                let label = "\(data.scenarios[cell.scenario].title) · \(data.transports[cell.transport]) · rep \(s.key.repetition)"
                data.series.append(
                    .init(
                        label: label, intervalSeconds: seconds,
                        mbps: b.bytes.map { Double($0) * 8 / seconds / 1e6 }))
            } else {
                data.seriesNotKept += 1
            }
        }
        return true
    }

    static func addMixedRunWarnings(_ data: inout ReportData) {
        let hashes = Set(data.runs.compactMap { $0.manifest?["matrix_hash"]?.stringValue })
        if hashes.count > 1 {
            data.warnings.append(
                "mixed runs: these folders ran \(hashes.count) different matrices (\(hashes.sorted().joined(separator: ", "))); figures pool cells of equal scenario and transport label across them"
            )
        }
        if data.linkModes.count > 1 {
            data.warnings.append(
                "mixed link modes: \(data.linkModes.joined(separator: ", ")); emulated, loopback and remote results are not comparable")
        }
    }
}
