import Foundation

/// `peerbench merge`: combines the run folders of the shards of one run (or of a run
/// continued on several machines) into one folder.
public enum RunMerge {
    /// What a merge did, for the command's report.
    public struct Report: Sendable {
        public var inputs = 0
        public var recordsWritten = 0
        public var duplicatesDropped = 0
        /// Cells of the matrix with no record in any input (a shard not merged or not finished).
        public var cellsMissing = 0
        public var warnings: [String] = []
    }

    /// Keys two shards of one run must agree on: they decide which cells exist and how
    /// they are seeded.
    static let mustAgree: [(key: String, value: @Sendable (Manifest) -> String)] = [
        ("matrix_hash", { $0.matrixHash }), ("seed", { String($0.seed) }), ("repetitions", { String($0.repetitions) }),
        ("transports", { $0.transports.joined(separator: ",") }),
    ]

    /// Merges `dirs` into `out` (which must not hold records yet). Refuses folders
    /// whose manifests disagree on the matrix (`matrix_hash`), seed, repetitions or
    /// transports, naming the folders. Exact duplicate records (the same line in two
    /// inputs) are written once; different records of one cell are all kept, in input
    /// order, so the last one wins as in any journal.
    public static func merge(_ dirs: [String], into out: String) throws(InputError) -> Report {
        var report = Report()
        var manifests: [(dir: String, manifest: Manifest)] = []
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
                throw InputError(source: m.manifestPath, "\(error)")
            }
            manifests.append((d, manifest))
        }
        let base = manifests[0]
        for (key, value) in mustAgree {
            let differing = manifests.filter { value($0.manifest) != value(base.manifest) }
            if !differing.isEmpty {
                let list = manifests.map { "\($0.dir): \(value($0.manifest))" }.joined(separator: "; ")
                throw InputError(source: "merge", "the folders are not shards of one run: their \"\(key)\" differs (\(list)); merge only folders run from the same matrix with the same options")
            }
        }
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

        var seen = Set<String>()
        var all: [Record] = []
        var sources: [Manifest.MergeSource] = []
        do {
            for (d, manifest) in manifests {
                let journal = RunDirectory.readJournal(at: d + "/records.jsonl")
                let records = journal.records
                if journal.torn != nil { report.warnings.append("\(d)/records.jsonl: skipped a torn or invalid line (resume that run to repair it)") }
                var kept = 0
                for r in records {
                    guard seen.insert(r.json.compactText).inserted else { report.duplicatesDropped += 1; continue }
                    try outDir.append(r)
                    all.append(r)
                    kept += 1
                }
                report.inputs += 1
                sources.append(Manifest.MergeSource(path: d, runID: manifest.runID, shard: manifest.shard, status: manifest.status,
                                                    records: records.count, recordsKept: kept))
            }
            report.recordsWritten = all.count

            let summary = RunSummary(lastRecordsOf: all)
            do {
                let total = base.manifest.matrixCellsTotal
                report.cellsMissing = max(0, total - summary.total)
                if report.cellsMissing > 0 {
                    report.warnings.append("\(report.cellsMissing) of the matrix's \(total) cells have no record in these folders (a shard missing or unfinished?)")
                }
            }
            var m = base.manifest
            m.status = "merged"
            let runIDs = Array(Set(manifests.map(\.manifest.runID))).sorted()
            m.runID = runIDs.count == 1 ? runIDs[0] : "merged:" + runIDs.joined(separator: "+")
            m.shard = nil
            m.cellsTotal = summary.total
            m.endedAt = Record.rfc3339(Date())
            m.summary = StatusCounts(summary)
            m.mergedFrom = sources
            try outDir.writeManifest(m)
            try outDir.exportCSV()
        } catch let e as InputError {
            throw e
        } catch {
            throw InputError(source: out, "cannot write the merged folder: \(error)")
        }
        return report
    }
}
