import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

/// A run's output folder: `records.jsonl` (the journal, one line per finished cell,
/// flushed to disk before the next cell starts), `manifest.json`, `records.csv`.
///
/// Records already written are never rewritten or truncated.
public final class RunDirectory: Sendable {
    public let path: String
    public var journalPath: String { path + "/records.jsonl" }
    public var manifestPath: String { path + "/manifest.json" }
    var csvPath: String { path + "/records.csv" }
    /// Where a torn last line is set aside on resume (appended, never overwritten).
    var tornPath: String { path + "/records.torn.jsonl" }
    /// Raw samples, one `CellSamples` line per record (docs/RECORDS.md).
    var samplesPath: String { path + "/samples.jsonl" }
    var samplesTornPath: String { path + "/samples.torn.jsonl" }
    /// Space held while the run writes, released to write the final manifest when the
    /// disk fills up (see `reserveBytes`).
    var reservePath: String { path + "/.peerbench-reserve" }
    /// 64 KiB: room for the final manifest (a few KiB) on a full disk.
    static let reserveBytes = 64 << 10
    /// The descriptors records and samples are appended to (-1 until the folder is
    /// opened for writing); closed when the folder is released.
    private let descriptors = Mutex((journal: Int32(-1), samples: Int32(-1)))
    var journalFD: Int32 {
        get { descriptors.withLock { $0.journal } }
        set { descriptors.withLock { $0.journal = newValue } }
    }
    var samplesFD: Int32 {
        get { descriptors.withLock { $0.samples } }
        set { descriptors.withLock { $0.samples = newValue } }
    }

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
        let theirs: Manifest?
        do { theirs = try dir.readManifest() } catch {
            // Not ours to overwrite, and nothing to continue either.
            throw InputError(
                source: "--out",
                "\(path) holds a manifest.json that \(error); it is not a peerbench run folder, so nothing in it is overwritten; choose another --out folder"
            )
        }
        if let existing = dir.existingRecordCount(), existing > 0 {
            let theirHash = theirs?.matrixHash
            if let theirHash, theirHash != matrix.hash {
                throw InputError(
                    source: "--out",
                    "\(path) already holds \(existing) records of a different matrix (\(theirHash), this one is \(matrix.hash)); choose another --out folder"
                )
            }
            if theirHash == nil {
                throw InputError(
                    source: "--out",
                    "\(path) already holds \(existing) records and no manifest.json saying of which matrix; choose another --out folder")
            }
            throw InputError(
                source: "--out",
                "\(path) already holds \(existing) records of this matrix; choose another --out folder, or continue that run with --resume \(path)")
        }
        try dir.openJournal()
        try dir.openForCells(source: "--out")
        return dir
    }

    /// The run folder at `path`, for reading (compare, baseline, report): nothing is opened.
    public init(path: String) { self.path = path }

    deinit {
        if journalFD >= 0 { close(journalFD) }
        if samplesFD >= 0 { close(samplesFD) }
    }

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

    /// Opens samples.jsonl and holds the reserve: what a folder the runner writes cells
    /// into needs besides the journal (a merged folder does not). Call after
    /// `openJournal`, whose lock covers samples.jsonl too: one writer per folder.
    func openForCells(source: String) throws(InputError) {
        let sfd = open(samplesPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard sfd >= 0 else {
            throw InputError(source: source, "cannot write \(samplesPath): \(String(cString: strerror(errno)))")
        }
        samplesFD = sfd
        holdReserve()
    }

    /// Allocates the reserve file (real blocks, not a sparse file). Best effort: on a
    /// disk already too full for it the run starts without one.
    func holdReserve() {
        let fd = open(reservePath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        if posix_fallocate(fd, 0, off_t(Self.reserveBytes)) != 0 { unlink(reservePath) }
    }

    /// Frees the reserve: before the final manifest and CSV, or when a write found the
    /// disk full. Idempotent.
    func releaseReserve() { unlink(reservePath) }

    /// Number of non-empty lines in an existing journal, nil if there is none.
    func existingRecordCount() -> Int? {
        guard let data = FileManager.default.contents(atPath: journalPath) else { return nil }
        return data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.count
    }

    /// Appends one record to records.jsonl as a single write and flushes it to disk. A
    /// failed write (a full disk) is cut back off: no partial line stays.
    public func append(_ record: Record) throws(RunDirectoryWriteError) {
        try appendLine(Array((record.json.compactText + "\n").utf8), to: journalFD, path: journalPath)
    }

    /// What the runner appends per cell: the raw samples to samples.jsonl first, then
    /// the record, so every record has its samples (a crash in between leaves samples
    /// whose cell runs again; readers take the last line of a key).
    public func append(_ record: Record, withSamples: Bool) throws(RunDirectoryWriteError) {
        if withSamples { try appendLine(Self.samplesLine(of: record), to: samplesFD, path: samplesPath) }
        try append(record)
    }

    /// `bytes` as one write plus fdatasync; on failure the file is truncated back to
    /// its length before the write.
    func appendLine(_ bytes: [UInt8], to fd: Int32, path: String) throws(RunDirectoryWriteError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw RunDirectoryWriteError(path: path, errno: errno) }
        do {
            try writeAll(fd, bytes)
            try syscall("fdatasync") { fdatasync(fd) }
        } catch {
            _ = ftruncate(fd, st.st_size)
            _ = fdatasync(fd)
            throw RunDirectoryWriteError(path: path, errno: error.errno)
        }
    }

    /// Writes the manifest atomically (temporary file, then rename).
    public func writeManifest(_ manifest: Manifest) throws(RunDirectoryWriteError) {
        try Self.writeAtomically(Array(manifest.json.prettyText.utf8), to: manifestPath)
    }

    /// Writes `bytes` to `path` through `path.tmp` and a rename; on failure the
    /// temporary file is removed and the old file, if any, is left as it was.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(RunDirectoryWriteError) {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RunDirectoryWriteError(path: path, errno: errno) }
        do {
            try writeAll(fd, bytes)
            try syscall("fsync") { fsync(fd) }
            close(fd)
            try syscall("rename") { rename(tmp, path) }
        } catch {
            close(fd)
            unlink(tmp)
            throw RunDirectoryWriteError(path: path, errno: error.errno)
        }
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

    static func readJournal(at path: String) -> JournalContents {
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
            do {
                contents.records.append(try Record(json: v))
                contents.recordLines.append(lineNo)
            } catch {
                contents.foreign.append((lineNo, "\(error)"))
            }
        }
        return contents
    }

    /// Rewrites records.csv from the journal (the journal is the source of truth):
    /// every record, or with `run` only the records of that run id and those cells
    /// (a journal may hold foreign lines, set aside on resume: see `belonging`).
    public func exportCSV(run: (id: String, cells: Set<CellKey>)? = nil) throws(RunDirectoryWriteError) {
        let journal = readRecords()
        let records = run.map { journal.belonging(toRun: $0.id, cells: $0.cells, journal: journalPath).own } ?? journal.records
        let rows = records.map { RecordsCSV.row($0) }
        let text = ([RecordsCSV.header] + rows).joined(separator: "\n") + "\n"
        try Self.writeAtomically(Array(text.utf8), to: csvPath)
    }
}
