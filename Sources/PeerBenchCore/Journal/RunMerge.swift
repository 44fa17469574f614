import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

/// `peerbench merge`: combines the run folders of the shards of one run (or of a run
/// continued on several machines) into one folder.
///
/// It streams: every journal is read a line at a time and written out through a
/// buffer, so memory stays bounded by the number of distinct cells, not the records'
/// size (200 000 records once took 3 GB).
public enum RunMerge {
    /// What a merge did, for the command's report.
    public struct Report: Sendable {
        public var inputs = 0
        public var recordsWritten = 0
        public var duplicatesDropped = 0
        /// Lines that do not belong to their folder's run (another run_id, a foreign
        /// schema, not a record): written to OUT/set-aside.jsonl, not to records.jsonl.
        public var setAside = 0
        public var samplesWritten = 0
        /// Cells of the matrix with no record in any input (merged with --allow-incomplete).
        public var cellsMissing = 0
        public var warnings: [String] = []

        /// What copying `inputs` folders did; set-aside lines past `namedLines` are
        /// summed up in one warning.
        init(inputs: Int, state: MergeState) {
            self.inputs = inputs
            recordsWritten = state.recordsWritten
            duplicatesDropped = state.duplicates
            setAside = state.setAside
            samplesWritten = state.samplesWritten
            warnings = state.warnings
            if state.setAside > namedLines {
                warnings.append("... \(state.setAside - namedLines) more lines set aside; all are in \(state.setAsidePath)")
            }
        }
    }

    /// Keys two shards of one run must agree on: they decide which cells exist and how
    /// they are seeded. (The manifest schema is checked on reading.)
    static let mustAgree: [(key: String, value: @Sendable (Manifest) -> String)] = [
        ("matrix_hash", { $0.matrixHash }), ("seed", { String($0.seed) }), ("repetitions", { String($0.repetitions) }),
        ("transports", { $0.transports.joined(separator: ",") }),
    ]
    /// At most this many set-aside lines are named one by one.
    static let namedLines = 20

    /// One input folder and what its manifest says.
    struct Input {
        var dir: String
        var manifest: Manifest
        /// run_ids its records may carry: its own, and those it was merged from.
        var runIDs: Set<String>
        var shard: (k: Int, n: Int)?
        var recorded = 0
        var records = 0
        var kept = 0
    }

    /// Merges `dirs` into `out` (which must not hold records yet).
    ///
    /// Refuses folders whose manifests disagree on the schema, the matrix
    /// (`matrix_hash`), seed, repetitions or transports, or on the number of shards,
    /// naming the folders. Refuses an incomplete set (cells of the matrix with no
    /// record), naming the shards not given and the folders not finished, unless
    /// `allowIncomplete`: then it merges and records what is missing under
    /// `"incomplete"` in the manifest. Exact duplicate lines are written once;
    /// different records of one cell are all kept, in input order, so the last one
    /// wins as in any journal. Lines that do not belong to their folder's run are set
    /// aside (OUT/set-aside.jsonl), each named in a warning. `samples.jsonl` is carried
    /// the same way when an input has one.
    public static func merge(_ dirs: [String], into out: String, allowIncomplete: Bool = false) throws(InputError) -> Report {
        var inputs = try readInputs(dirs)
        try checkAgreement(inputs)
        let outDir = try openOutput(out, inputs: dirs)
        var written: [String] = []
        do {
            var state = MergeState(out: out)
            written = [outDir.csvPath + ".tmp", state.setAsidePath, outDir.path + "/samples.jsonl"]
            try copy(&inputs, into: outDir, state: &state)
            var report = Report(inputs: inputs.count, state: state)
            report.warnings.append(contentsOf: floorWarnings(inputs))
            let incomplete = describeIncomplete(inputs, covered: state.lastStatus.count)
            if let incomplete {
                report.cellsMissing = incomplete.missing
                guard allowIncomplete else {
                    throw InputError(
                        source: "merge",
                        incomplete.message
                            + ". Resume the unfinished shards (peerbench run MATRIX --resume DIR, or resubmit their array index) and merge again, or merge what there is with --allow-incomplete"
                    )
                }
                report.warnings.append(incomplete.message + "; merged anyway (--allow-incomplete), listed under \"incomplete\" in the manifest")
            }
            try writeManifest(inputs, state: state, incomplete: incomplete?.record, to: outDir)
            try syscall("rename(records.csv)") { rename(outDir.csvPath + ".tmp", outDir.csvPath) }
            return report
        } catch let e as InputError {
            remove(outDir, written)
            throw e
        } catch {
            remove(outDir, written)
            throw InputError(source: out, "cannot write the merged folder: \(error)")
        }
    }

    /// The output folder, created and its journal locked; refused when it holds records
    /// already or is one of the inputs.
    static func openOutput(_ out: String, inputs dirs: [String]) throws(InputError) -> RunDirectory {
        let outDir = RunDirectory(path: out)
        if let n = outDir.existingRecordCount(), n > 0 {
            throw InputError(source: "--out", "\(out) already holds \(n) records; merge into a new folder")
        }
        if dirs.contains(where: { URL(fileURLWithPath: $0).standardized.path == URL(fileURLWithPath: out).standardized.path }) {
            throw InputError(source: "--out", "\(out) is also an input; merge into a new folder")
        }
        do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
            throw InputError(source: "--out", "cannot create folder \(out): \(error.localizedDescription)")
        }
        try outDir.openJournal()
        return outDir
    }

    /// Streams every input's records into the journal and records.csv.tmp, then their
    /// samples, then closes the set-aside file.
    static func copy(_ inputs: inout [Input], into outDir: RunDirectory, state: inout MergeState) throws {
        let journal = try BufferedFileWriter(path: outDir.journalPath)
        let csv = try BufferedFileWriter(path: outDir.csvPath + ".tmp")
        try csv.write(line: RecordsCSV.header)
        for i in inputs.indices {
            try copyRecords(of: &inputs[i], to: journal, csv: csv, state: &state)
        }
        try journal.finish()
        try csv.finish()
        var samples: BufferedFileWriter?
        for input in inputs {
            try copySamples(of: input, to: &samples, out: outDir.path, state: &state)
        }
        try samples?.finish()
        try state.finishSetAside()
    }

    /// Takes back what a refused merge wrote, so `--out` can be used again.
    private static func remove(_ outDir: RunDirectory, _ files: [String]) {
        for f in files + [outDir.journalPath] { try? FileManager.default.removeItem(atPath: f) }
    }

    static func readInputs(_ dirs: [String]) throws(InputError) -> [Input] {
        var inputs: [Input] = []
        for d in dirs {
            let m = RunDirectory(path: d)
            guard FileManager.default.fileExists(atPath: m.manifestPath) else {
                throw InputError(source: d, "no manifest.json here; is it a folder written by peerbench run --out?")
            }
            let manifest: Manifest
            do {
                guard let read = try m.readManifest() else { throw ManifestError("is missing") }
                manifest = read
            } catch {
                throw InputError(source: m.manifestPath, "\(error); this peerbench cannot merge it")
            }
            var ids: Set<String> = [manifest.runID]
            for source in manifest.mergedFrom ?? [] { ids.insert(source.runID) }
            var shard: (Int, Int)?
            if let text = manifest.shard, let s = try? Shard(parsing: text) { shard = (s.index, s.count) }
            inputs.append(Input(dir: d, manifest: manifest, runIDs: ids, shard: shard))
        }
        return inputs
    }

    static func checkAgreement(_ inputs: [Input]) throws(InputError) {
        let base = inputs[0].manifest
        for (key, value) in mustAgree where inputs.contains(where: { value($0.manifest) != value(base) }) {
            let list = inputs.map { "\($0.dir): \(value($0.manifest))" }.joined(separator: "; ")
            throw InputError(
                source: "merge",
                "the folders are not shards of one run: their \"\(key)\" differs (\(list)); merge only folders run from the same matrix with the same options"
            )
        }
        let counts = Set(inputs.compactMap { $0.shard?.n })
        if counts.count > 1 {
            let list = inputs.map { "\($0.dir): \($0.manifest.shard ?? "not sharded")" }.joined(separator: "; ")
            throw InputError(
                source: "merge", "the folders come from different splits into shards (\(list)); merge the N shards of one --shard K/N split")
        }
    }

    /// Two inputs' floors differ when the larger is more than `floorRatio` times the
    /// smaller and the two are further apart than the margin (loopback RTT p50:
    /// `loopbackMarginMs`; emulator release p99: `releaseMarginMicros`); their loads
    /// when the 1-minute load averages per allowed CPU differ by more than `loadSpread`
    /// and the larger is more than `loadRatio` times the smaller (4.3 against 5.0 per
    /// CPU is one busy machine, 0.5 against 4 a quiet node and a crowded one).
    static let floorRatio = 2.0
    static let loopbackMarginMs = 0.05
    static let releaseMarginMicros = 100.0
    static let loadSpread = 0.5
    static let loadRatio = 1.5

    /// Warnings for shards of one run that measured on unlike footing: different
    /// measurement floors (loopback RTT per transport, the emulator's release error) or
    /// different loads when they started. Each names every folder's value and node.
    static func floorWarnings(_ inputs: [Input]) -> [String] {
        let measured = inputs.compactMap { i in i.manifest.measurementFloor.map { (input: i, floor: $0) } }
        guard measured.count > 1 else { return [] }
        func number(_ v: Double) -> String {
            v >= 100 ? String(Int(v.rounded())) : String(format: "%.3g", v)
        }
        func list(_ values: [(Input, Double)], _ unit: String) -> String {
            values.map { "\($0.0.dir)\($0.0.manifest.node.map { " (node \($0))" } ?? ""): \(number($0.1))\(unit)" }
                .joined(separator: "; ")
        }
        var warnings: [String] = []
        let why =
            "differences between their cells smaller than this are the nodes', not the transports' (docs/UNATTENDED.md, \"How many shards a node holds\")"
        for label in inputs[0].manifest.transports {
            let values = measured.compactMap { m in m.floor.loopbackRTT.first { $0.label == label }?.p50Ms.map { (m.input, $0) } }
            guard let lo = values.map(\.1).min(), let hi = values.map(\.1).max(),
                hi - lo > loopbackMarginMs, hi > floorRatio * lo
            else { continue }
            warnings.append("the shards saw different measurement floors: loopback RTT p50 of \(label): \(list(values, " ms")); \(why)")
        }
        let release = measured.compactMap { m in m.floor.emulatorReleaseError.map { (m.input, Double($0.p99Micros)) } }
        if let lo = release.map(\.1).min(), let hi = release.map(\.1).max(), hi - lo > releaseMarginMicros, hi > floorRatio * lo {
            warnings.append("the shards saw different measurement floors: emulator release error p99: \(list(release, " µs")); \(why)")
        }
        let loads = measured.compactMap { m in m.floor.loadPerCPU.map { (m.input, $0) } }
        if let lo = loads.map(\.1).min(), let hi = loads.map(\.1).max(), hi - lo > loadSpread, hi > loadRatio * lo {
            warnings.append(
                "the shards started under different loads: 1-minute load average per CPU: \(list(loads, "")); a loaded node's emulator releases packets late and its transports get less CPU (docs/UNATTENDED.md, \"How many shards a node holds\")"
            )
        }
        return warnings
    }

    /// Running totals of one merge.
    struct MergeState {
        let setAsidePath: String
        var seenLines = Set<StableDigest>()
        var lastStatus: [CellKey: CellStatus] = [:]
        var recordsWritten = 0
        var duplicates = 0
        var setAside = 0
        var samplesWritten = 0
        var warnings: [String] = []
        private var setAsideFile: BufferedFileWriter?

        init(out: String) { setAsidePath = out + "/set-aside.jsonl" }

        /// Keeps a line out of the merged journal, in set-aside.jsonl, and names it.
        mutating func setAside(_ line: ArraySlice<UInt8>, file: String, line number: Int, _ why: String) throws {
            if setAsideFile == nil { setAsideFile = try BufferedFileWriter(path: setAsidePath) }
            try setAsideFile!.write(line: line)
            setAside += 1
            if setAside <= RunMerge.namedLines {
                warnings.append("\(file):\(number): \(why); set aside in \(setAsidePath), not merged")
            }
        }

        func finishSetAside() throws { try setAsideFile?.finish() }
    }

    /// The record on a line, or why it is not a record of one of `runIDs`. A line is
    /// checked for what every reader of the merged folder reads (`RecordLine`).
    static func readRecord(_ line: ArraySlice<UInt8>, runIDs: Set<String>) -> Result<RecordLine, MergeRefusal> {
        let record: RecordLine
        do { record = try RecordLine(line) } catch {
            switch error {
            case .syntax, .notAnObject: return .failure(.init("not a JSON object (a torn or foreign line)"))
            case .schema: return .failure(.init(error.description))
            case .field(let f): return .failure(.init("not a complete record: \(f)"))
            }
        }
        guard runIDs.contains(record.runID) else {
            return .failure(.init("a record of run \"\(record.runID)\", not of this folder's run \(runIDs.sorted().joined(separator: ", "))"))
        }
        return .success(record)
    }

    /// Why a line is set aside.
    struct MergeRefusal: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Why a samples line does not belong to one of `runIDs` (nil: it does).
    static func samplesReason(_ line: ArraySlice<UInt8>, runIDs: Set<String>) -> String? {
        guard let value = try? JSONParser.parse(Array(line)), value.objectValue != nil else {
            return "not a JSON object (a torn or foreign line)"
        }
        guard value["schema"]?.stringValue == CellSamples.schema else {
            return "schema \(value["schema"]?.compactText ?? "missing") is not \(CellSamples.schema)"
        }
        guard let id = value["run_id"]?.stringValue, runIDs.contains(id) else {
            return
                "a samples line of run \(value["run_id"]?.compactText ?? "none"), not of this folder's run \(runIDs.sorted().joined(separator: ", "))"
        }
        return nil
    }

    /// One journal line as merge reads it (on any thread): the record or why it is set
    /// aside, the line's digest for exact duplicates, and its CSV row.
    enum ReadLine: Sendable {
        case blank
        case refused(String)
        case record(RecordLine, digest: StableDigest, csv: String)

        init(_ line: ArraySlice<UInt8>, runIDs: Set<String>) {
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) {
                self = .blank
                return
            }
            switch readRecord(line, runIDs: runIDs) {
            case .failure(let refusal): self = .refused(refusal.reason)
            case .success(let r): self = .record(r, digest: StableDigest.of(line), csv: RecordsCSV.row(r.root))
            }
        }
    }

    static func copyRecords(
        of input: inout Input, to journal: BufferedFileWriter, csv: BufferedFileWriter,
        state: inout MergeState
    ) throws {
        let path = input.dir + "/records.jsonl"
        var mine = Set<CellKey>()
        var records = 0, kept = 0
        let runIDs = input.runIDs
        var failure: (any Error)?
        _ = try JournalLines.forEach(path: path, decode: { (line: ArraySlice<UInt8>) in (line, ReadLine(line, runIDs: runIDs)) }) {
            (read, number) throws(InputError) in
            guard failure == nil else { return }
            do {
                switch read.1 {
                case .blank: return
                case .refused(let why): try state.setAside(read.0, file: path, line: number, why)
                case .record(let record, let digest, let row):
                    records += 1
                    guard state.seenLines.insert(digest).inserted else {
                        state.duplicates += 1
                        return
                    }
                    let key = CellKey(cellID: record.cellID, repetition: record.repetition)
                    mine.insert(key)
                    state.lastStatus[key] = record.status
                    try journal.write(line: read.0)
                    try csv.write(line: row)
                    state.recordsWritten += 1
                    kept += 1
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        input.records = records
        input.kept = kept
        input.recorded = mine.count
    }

    static func copySamples(of input: Input, to writer: inout BufferedFileWriter?, out: String, state: inout MergeState) throws {
        let path = input.dir + "/samples.jsonl"
        guard let reader = JournalLineReader(path: path) else { return }
        while let line = try reader.next() {
            let number = reader.lineNumber
            if line.isEmpty { continue }
            if let why = samplesReason(line, runIDs: input.runIDs) {
                try state.setAside(line, file: path, line: number, why)
                continue
            }
            guard state.seenLines.insert(StableDigest.of(line)).inserted else { continue }
            if writer == nil { writer = try BufferedFileWriter(path: out + "/samples.jsonl") }
            try writer!.write(line: line)
            state.samplesWritten += 1
        }
    }

    /// What an incomplete set lacks: the shards not given and the folders not finished.
    static func describeIncomplete(_ inputs: [Input], covered: Int) -> (missing: Int, message: String, record: Manifest.Incomplete)? {
        let total = inputs[0].manifest.matrixCellsTotal
        guard covered < total else { return nil }
        var parts: [String] = []
        var shardsMissing: [String] = []
        if let n = inputs.first?.shard?.n, inputs.allSatisfy({ $0.shard != nil }) {
            let given = Set(inputs.map { $0.shard!.k })
            shardsMissing = (1...n).filter { !given.contains($0) }.map { "\($0)/\(n)" }
            if !shardsMissing.isEmpty {
                parts.append("no folder of shard\(shardsMissing.count > 1 ? "s" : "") \(shardsMissing.joined(separator: ", ")) was given")
            }
        }
        var unfinished: [Manifest.Incomplete.Folder] = []
        for i in inputs where i.recorded < i.manifest.cellsTotal {
            let m = i.manifest
            parts.append("\(i.dir) (\(m.shard.map { "shard \($0), " } ?? "")status \(m.status)) recorded \(i.recorded) of its \(m.cellsTotal) cells")
            unfinished.append(.init(path: i.dir, shard: m.shard, status: m.status, cellsRecorded: i.recorded, cellsTotal: m.cellsTotal))
        }
        let missing = total - covered
        let message =
            "incomplete: \(missing) of the matrix's \(total) cells have no record"
            + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
        return (missing, message, Manifest.Incomplete(cellsMissing: missing, shardsMissing: shardsMissing, unfinished: unfinished))
    }

    static func writeManifest(_ inputs: [Input], state: MergeState, incomplete: Manifest.Incomplete?, to outDir: RunDirectory) throws {
        var m = inputs[0].manifest
        m.status = "merged"
        let runIDs = Array(Set(inputs.map(\.manifest.runID))).sorted()
        m.runID = runIDs.count == 1 ? runIDs[0] : "merged:" + runIDs.joined(separator: "+")
        m.shard = nil
        m.cellsTotal = state.lastStatus.count
        m.cellsRecorded = state.lastStatus.count
        m.endedAt = Record.rfc3339(Date())
        var summary = RunSummary()
        summary.total = state.lastStatus.count
        for status in state.lastStatus.values { summary.byStatus[status, default: 0] += 1 }
        m.summary = StatusCounts(summary)
        m.mergedFrom = inputs.map {
            Manifest.MergeSource(
                path: $0.dir, runID: $0.manifest.runID, shard: $0.manifest.shard, status: $0.manifest.status,
                records: $0.records, recordsKept: $0.kept, node: $0.manifest.node)
        }
        // One folder of several nodes: each input's node is in merged_from.
        m.node = nil
        m.incomplete = incomplete
        m.setAside = state.setAside
        // The shards of one run share its note; different notes are all kept, in input order.
        var notes: [String] = []
        for n in inputs.compactMap(\.manifest.note) where !notes.contains(n) { notes.append(n) }
        m.note = notes.isEmpty ? nil : notes.joined(separator: " | ")
        try outDir.writeManifest(m)
    }
}
