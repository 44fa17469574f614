import Foundation

/// A run's output folder: `records.jsonl` (the journal, one line per finished cell,
/// flushed to disk before the next cell starts), `manifest.json`, `records.csv`.
///
/// Records already written are never rewritten or truncated.
public final class RunDirectory: @unchecked Sendable {
    public let path: String
    public var journalPath: String { path + "/records.jsonl" }
    public var manifestPath: String { path + "/manifest.json" }
    public var csvPath: String { path + "/records.csv" }
    /// Where a torn last line is set aside on resume (appended, never overwritten).
    public var tornPath: String { path + "/records.torn.jsonl" }
    var journalFD: Int32 = -1

    /// Opens (creating if needed) an output folder for a new run of `matrix`.
    /// Refuses a folder that already holds records, naming whose they are, so nothing
    /// is overwritten.
    public static func create(_ path: String, for matrix: Matrix) throws(InputError) -> RunDirectory {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw InputError(source: "--out", "\(path) exists and is not a folder") }
        } else {
            do { try fm.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw InputError(source: "--out", "cannot create folder \(path): \(error.localizedDescription)")
            }
        }
        let dir = RunDirectory(path: path)
        if let existing = dir.existingRecordCount(), existing > 0 {
            let theirHash = (try? dir.readManifest())??.matrixHash
            if let theirHash, theirHash != matrix.hash {
                throw InputError(source: "--out", "\(path) already holds \(existing) records of a different matrix (\(theirHash), this one is \(matrix.hash)); choose another --out folder")
            }
            if theirHash == nil {
                throw InputError(source: "--out", "\(path) already holds \(existing) records and no manifest.json saying of which matrix; choose another --out folder")
            }
            throw InputError(source: "--out", "\(path) already holds \(existing) records of this matrix; choose another --out folder, or continue that run with --resume \(path)")
        }
        try dir.openJournal()
        return dir
    }

    init(path: String) { self.path = path }

    deinit { if journalFD >= 0 { close(journalFD) } }

    func openJournal(source: String = "--out") throws(InputError) {
        let fd = open(journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw InputError(source: source, "cannot write \(journalPath): \(String(cString: strerror(errno)))")
        }
        // Two runs appending to one journal would interleave cells and both resume wrongly.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw InputError(source: source, "\(path) is in use by another peerbench run (records.jsonl is locked); wait for it or stop it first")
        }
        journalFD = fd
    }

    /// Number of non-empty lines in an existing journal, nil if there is none.
    func existingRecordCount() -> Int? {
        guard let data = FileManager.default.contents(atPath: journalPath) else { return nil }
        return data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.count
    }

    /// Appends one record as a single write and flushes it to disk.
    public func append(_ record: Record) throws {
        let line = Array((record.json.compactText + "\n").utf8)
        try line.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                off += try syscall("write(records.jsonl)") { write(journalFD, buf.baseAddress! + off, buf.count - off) }
            }
        }
        try syscall("fdatasync(records.jsonl)") { fdatasync(journalFD) }
    }

    /// Writes the manifest atomically (temporary file, then rename).
    public func writeManifest(_ manifest: Manifest) throws {
        let tmp = manifestPath + ".tmp"
        try Data(manifest.json.prettyText.utf8).write(to: URL(fileURLWithPath: tmp))
        try syscall("rename(manifest.json)") { rename(tmp, manifestPath) }
    }

    /// The folder's manifest; nil when there is none, `ManifestError` when it is not a
    /// peerbench manifest (the message says what is wrong; the caller names the file).
    public func readManifest() throws(ManifestError) -> Manifest? {
        guard let data = FileManager.default.contents(atPath: manifestPath) else { return nil }
        do { return try Manifest(bytes: data) } catch let e as ManifestError { throw e } catch { throw ManifestError("\(error)") }
    }

    /// The journal's complete records, in order. A torn last line (a crash mid-write)
    /// is returned separately so the caller can set it aside.
    public func readRecords() -> JournalContents {
        RunDirectory.readJournal(at: journalPath)
    }

    public static func readJournal(at path: String) -> JournalContents {
        var contents = JournalContents()
        guard let data = FileManager.default.contents(atPath: path) else { return contents }
        var lineNo = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNo += 1
            if line.isEmpty { continue }
            guard let v = try? JSONParser.parse(Array(line)), v.objectValue != nil else {
                contents.torn = String(decoding: line, as: UTF8.self)
                continue
            }
            do { contents.records.append(try Record(json: v)) } catch {
                contents.foreign.append((lineNo, "\(error)"))
            }
        }
        return contents
    }

    /// Rewrites records.csv from the journal (the journal is the source of truth).
    public func exportCSV() throws {
        let rows = readRecords().records.map { RecordsCSV.row($0) }
        let text = ([RecordsCSV.header] + rows).joined(separator: "\n") + "\n"
        let tmp = csvPath + ".tmp"
        try Data(text.utf8).write(to: URL(fileURLWithPath: tmp))
        try syscall("rename(records.csv)") { rename(tmp, csvPath) }
    }
}

/// What a journal holds: its records in order, the complete lines that are not
/// records (with their line number and why), and a torn last line.
public struct JournalContents: Sendable {
    public var records: [Record] = []
    public var foreign: [(line: Int, reason: String)] = []
    public var torn: String?
    public init() {}
}
