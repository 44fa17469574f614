import Foundation

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
            throw InputError(source: "--resume", "\(path) has no manifest.json, so it is not a peerbench run folder (or the run never started); start a new run with --out \(path)")
        }
        do { _ = try dir.readManifest() } catch {
            throw InputError(source: "--resume", "\(dir.manifestPath) \(error); cannot tell which matrix the records belong to")
        }
        // Lock before repairing, so a run still writing is never truncated under its feet.
        try dir.openJournal(source: "--resume")
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
        guard let data = FileManager.default.contents(atPath: journalPath), !data.isEmpty else { return [] }
        var warnings: [String] = []
        let bytes = [UInt8](data)
        let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n"))
        let keep = lastNewline.map { $0 + 1 } ?? 0
        let tail = Array(bytes[keep...])
        var lineNo = 0
        for line in bytes[..<keep].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            lineNo += 1
            if line.isEmpty { continue }
            if (try? JSONParser.parse(Array(line)))?.objectValue == nil {
                warnings.append("\(journalPath) line \(lineNo) is not a JSON record; left in place and ignored")
            }
        }
        guard !tail.isEmpty else { return warnings }
        if let v = try? JSONParser.parse(tail), v.objectValue != nil {
            try append(bytes: [UInt8(ascii: "\n")])
            warnings.append("\(journalPath): the last record lacked its line end; completed it")
            return warnings
        }
        let fd = try syscall("open(records.torn.jsonl)") { open(tornPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
        defer { close(fd) }
        try writeAll(fd, tail + [UInt8(ascii: "\n")], what: "records.torn.jsonl")
        try syscall("fsync(records.torn.jsonl)") { fsync(fd) }
        try syscall("ftruncate(records.jsonl)") { ftruncate(journalFD, off_t(keep)) }
        try syscall("fdatasync(records.jsonl)") { fdatasync(journalFD) }
        warnings.append("\(journalPath): the last line (\(tail.count) bytes) was cut short by a crash; moved it to \(tornPath); that cell runs again")
        return warnings
    }

    func append(bytes: [UInt8]) throws {
        try writeAll(journalFD, bytes, what: "records.jsonl")
        try syscall("fdatasync(records.jsonl)") { fdatasync(journalFD) }
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8], what: String) throws {
        try bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                off += try syscall("write(\(what))") { write(fd, buf.baseAddress! + off, buf.count - off) }
            }
        }
    }
}
