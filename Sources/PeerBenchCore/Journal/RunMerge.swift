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
    static let mustAgree = ["matrix_hash", "seed", "repetitions", "transports"]

    /// Merges `dirs` into `out` (which must not hold records yet). Refuses folders
    /// whose manifests disagree on the matrix (`matrix_hash`), seed, repetitions or
    /// transports, naming the folders. Exact duplicate records (the same line in two
    /// inputs) are written once; different records of one cell are all kept, in input
    /// order, so the last one wins as in any journal.
    public static func merge(_ dirs: [String], into out: String) throws(InputError) -> Report {
        var report = Report()
        var manifests: [(dir: String, manifest: JSONValue)] = []
        for d in dirs {
            let m = RunDirectory(path: d)
            guard FileManager.default.fileExists(atPath: m.manifestPath) else {
                throw InputError(source: d, "no manifest.json here; is it a folder written by peerbench run --out?")
            }
            guard let manifest = m.readManifest(), manifest.objectValue != nil else {
                throw InputError(source: m.manifestPath, "not valid JSON")
            }
            manifests.append((d, manifest))
        }
        let base = manifests[0]
        for key in mustAgree {
            let differing = manifests.filter { $0.manifest[key] != base.manifest[key] }
            if !differing.isEmpty {
                let list = manifests.map { "\($0.dir): \($0.manifest[key]?.compactText ?? "none")" }.joined(separator: "; ")
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
        var all: [JSONValue] = []
        var sources: [JSONValue] = []
        do {
            for (d, manifest) in manifests {
                let (records, torn) = RunDirectory.readJournal(at: d + "/records.jsonl")
                if torn != nil { report.warnings.append("\(d)/records.jsonl: skipped a torn or invalid line (resume that run to repair it)") }
                var kept = 0
                for r in records {
                    guard seen.insert(r.compactText).inserted else { report.duplicatesDropped += 1; continue }
                    try outDir.append(r)
                    all.append(r)
                    kept += 1
                }
                report.inputs += 1
                sources.append(["path": .string(d), "run_id": manifest["run_id"] ?? .null, "shard": manifest["shard"] ?? .null,
                                "status": manifest["status"] ?? .null, "records": JSONValue(records.count), "records_kept": JSONValue(kept)])
            }
            report.recordsWritten = all.count

            let summary = RunSummary(lastRecordsOf: all)
            if let total = base.manifest["matrix_cells_total"]?.intValue {
                report.cellsMissing = max(0, total - summary.total)
                if report.cellsMissing > 0 {
                    report.warnings.append("\(report.cellsMissing) of the matrix's \(total) cells have no record in these folders (a shard missing or unfinished?)")
                }
            }
            var m = base.manifest.objectValue!
            m["status"] = "merged"
            let runIDs = Array(Set(manifests.compactMap { $0.manifest["run_id"]?.stringValue })).sorted()
            m["run_id"] = runIDs.count == 1 ? .string(runIDs[0]) : .string("merged:" + runIDs.joined(separator: "+"))
            m["shard"] = .null
            m["cells_total"] = JSONValue(summary.total)
            m["ended_at"] = .string(Record.rfc3339(Date()))
            var s = JSONObject()
            for status in CellStatus.allCases { s[status.rawValue] = JSONValue(summary.byStatus[status] ?? 0) }
            m["summary"] = .object(s)
            m["merged_from"] = .array(sources)
            try outDir.writeManifest(.object(m))
            try outDir.exportCSV()
        } catch let e as InputError {
            throw e
        } catch {
            throw InputError(source: out, "cannot write the merged folder: \(error)")
        }
        return report
    }
}
