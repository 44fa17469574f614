import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

extension RunDirectory {
    /// Opens an existing run folder to continue its run. Requires a manifest (so the
    /// matrix can be checked) and repairs a torn journal tail first: see `repairJournal`.
    /// Returns the folder and warnings for the user.
    public static func openForResume(_ path: String) throws(InputError) -> (RunDirectory, warnings: [String]) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
            throw InputError(source: "--resume", "\(path) is not a folder; give the --out folder of the run to continue")
        }
        let dir = RunDirectory(path: path)
        guard FileManager.default.fileExists(atPath: dir.manifestPath) else {
            throw InputError(
                source: "--resume",
                "\(path) has no manifest.json, so it is not a peerbench run folder (or the run never started); start a new run with --out \(path)")
        }
        do { _ = try dir.readManifest() } catch {
            throw InputError(source: "--resume", "\(dir.manifestPath) \(error); cannot tell which matrix the records belong to")
        }
        // Lock before repairing, so a run still writing is never truncated under its feet.
        try dir.openJournal(source: "--resume")
        try dir.openForCells(source: "--resume")
        let warnings: [String]
        do { warnings = try dir.repairJournal() } catch {
            throw InputError(source: "--resume", "cannot repair \(dir.journalPath): \(error)")
        }
        return (dir, warnings)
    }

    /// Makes the journal end in a complete line, losing nothing.
    ///
    /// Each record is appended with one write, so a crash can leave at most the last
    /// line cut short. Such a tail is first appended to records.torn.jsonl and flushed,
    /// and only then cut from the journal (ftruncate at the end of the last complete
    /// line): complete records are never touched, and the torn bytes survive in a
    /// file of their own. A tail that is a whole record missing only its newline is
    /// kept and completed. Complete lines that are not records are left in place (and
    /// reported); they are ignored when reading.
    func repairJournal() throws -> [String] {
        let data = FileManager.default.contents(atPath: journalPath) ?? Data()
        var warnings: [String] = []
        let bytes = [UInt8](data)
        let keep = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        var lineNo = 0
        for line in bytes[..<keep].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            lineNo += 1
            if line.isEmpty { continue }
            if (try? JSONParser.parse(Array(line)))?.objectValue == nil {
                warnings.append("\(journalPath) line \(lineNo) is not a JSON record; left in place and ignored")
            }
        }
        if let w = try repairTail(bytes, fd: journalFD, path: journalPath, tornPath: tornPath) { warnings.append(w) }
        if let samples = FileManager.default.contents(atPath: samplesPath),
            let w = try repairTail([UInt8](samples), fd: samplesFD, path: samplesPath, tornPath: samplesTornPath)
        {
            warnings.append(w)
        }
        return warnings
    }

    /// Ends the file `bytes` were read from with a complete line: a tail that is a
    /// whole JSON object gets its newline; any other tail is appended to `tornPath`,
    /// flushed, and only then cut off. Returns a warning, nil when nothing was wrong.
    func repairTail(_ bytes: [UInt8], fd: Int32, path: String, tornPath: String) throws -> String? {
        let keep = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let tail = Array(bytes[keep...])
        guard !tail.isEmpty else { return nil }
        if let v = try? JSONParser.parse(tail), v.objectValue != nil {
            try writeAll(fd, [UInt8(ascii: "\n")], function: "write(\(path))")
            try syscall("fdatasync(\(path))") { fdatasync(fd) }
            return "\(path): the last line lacked its line end; completed it"
        }
        let torn = try syscall("open(\(tornPath))") { open(tornPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
        defer { close(torn) }
        try writeAll(torn, tail + [UInt8(ascii: "\n")], function: "write(\(tornPath))")
        try syscall("fsync(\(tornPath))") { fsync(torn) }
        try syscall("ftruncate(\(path))") { ftruncate(fd, off_t(keep)) }
        try syscall("fdatasync(\(path))") { fdatasync(fd) }
        return "\(path): the last line (\(tail.count) bytes) was cut short by a crash; moved it to \(tornPath); that cell runs again"
    }
}

extension JournalContents {
    /// The records of run `runID` of a matrix with `cells`, and a warning for every
    /// other line: a line that is not a record (any other JSON object, another schema
    /// such as `peerbench.record/9`), a record of another run (another `run_id`, which is
    /// also what a record of another matrix carries) or of a cell this matrix does not
    /// have. Those lines stay in the journal untouched (it is never rewritten) but are
    /// never counted as done: their cells run again. Nothing of the run's own is dropped.
    func belonging(toRun runID: String, cells: Set<CellKey>, journal: String) -> (own: [Record], warnings: [String]) {
        var own: [Record] = []
        var set: [(Int, String)] = foreign.map { ($0.line, "is not a \(Record.currentSchema) record (\($0.reason))") }
        var unmatched: [(line: Int, cellID: String, repetition: Int)] = []
        for (r, line) in zip(records, recordLines) {
            if !Record.readableSchemas.contains(r.schema) {
                set.append((line, "has schema \"\(r.schema)\", not \"\(Record.currentSchema)\""))
            } else if r.runID != runID {
                set.append((line, "is a record of another run (run_id \(r.runID), this run is \(runID))"))
            } else if !cells.contains(r.key.cell) {
                unmatched.append((line, r.cellID, r.repetition))
            } else {
                own.append(r)
            }
        }
        var warnings: [String] = []
        if unmatched.count > own.count {
            // Most of the run's own records name cells the matrix does not have, though the
            // matrix is the run's (its hash was checked): the ids were made another way.
            warnings.append(
                "\(unmatched.count) of \(unmatched.count + own.count) records of this run in \(journal) match no cell of its matrix "
                    + "(lines \(unmatched.prefix(3).map { String($0.line) }.joined(separator: ", "))\(unmatched.count > 3 ? ", ..." : ""); cell_id "
                    + "\(unmatched[0].cellID) first): made by a version whose cell ids differ? (docs/RECORDS.md, \"Cell ids\"). They are set aside, "
                    + "left in place, and their cells run again; to continue the run instead, resume it with the version that started it")
        } else {
            set += unmatched.map {
                ($0.line, "is a record of a cell this run's matrix does not have (cell_id \($0.cellID), repetition \($0.repetition))")
            }
        }
        warnings += set.sorted { $0.0 < $1.0 }.map {
            "\(journal) line \($0.0) \($0.1); set aside: left in place, ignored, its cell not counted as done"
        }
        return (own, warnings)
    }
}
