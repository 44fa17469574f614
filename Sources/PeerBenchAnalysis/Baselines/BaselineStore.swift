import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// Named baselines (`peerbench baseline save|list`, `compare --baseline NAME`; docs/COMPARE.md
/// "Named baselines"): a folder per name holding what the comparison needs of a run, its
/// `manifest.json` and `records.jsonl` byte for byte, plus `baseline.json` saying where
/// and when they came from. A saved baseline is itself a run folder, so everything that
/// reads one reads it.
public struct BaselineStore: Sendable {
    /// Relative to the working directory, like `results/`.
    public static let defaultDirectory = ".peerbench/baselines"
    /// What `baseline.json` says about a saved baseline.
    public struct Entry: Sendable, Equatable, Codable {
        public var schema = "peerbench.baseline-entry/1"
        public var name: String
        public var savedAt: String
        /// The run folder it was saved from, as given.
        public var source: String
        public var runID: String
        public var matrixFile: String
        public var matrixHash: String
        public var linkMode: String
        public var records: Int
        public var scenarios: Int
        public var labels: [String]
        /// The run's `--note`.
        public var note: String?

        enum CodingKeys: String, CodingKey {
            case schema, name, savedAt = "saved_at", source, runID = "run_id", matrixFile = "matrix_file", matrixHash = "matrix_hash"
            case linkMode = "link_mode", records, scenarios, labels, note
        }
    }

    public let directory: String

    public init(directory: String = BaselineStore.defaultDirectory) { self.directory = directory }

    static let files = ["manifest.json", "records.jsonl"]
    static let entryFile = "baseline.json"

    /// A name is a folder name anyone can type: letters, digits, `.`, `_`, `-`, 1-64
    /// characters, not starting with `.` (so never `..` or a hidden temporary).
    public static func check(name: String) throws(InputError) {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed, !name.hasPrefix(".") else {
            throw InputError(source: "baseline name \"\(name)\"", "use 1-64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
    }

    public func path(of name: String) -> String { directory + "/" + name }

    /// Saves `runDirectory` as `name`. The run must have a manifest and records that
    /// compare (the same checks as `compare`). An existing name is kept unless `replace`;
    /// the new copy is complete before it takes the name, so a failure leaves the old one.
    @discardableResult
    public func save(name: String, runDirectory: String, replace: Bool = false, now: Date = Date()) throws(InputError) -> Entry {
        try Self.check(name: name)
        let manifest: Manifest
        do {
            guard let m = try RunDirectory(path: runDirectory).readManifest() else {
                throw InputError(
                    source: runDirectory, "no manifest.json here: a baseline keeps the run's manifest to check later runs are of the same matrix")
            }
            manifest = m
        } catch let e as InputError { throw e } catch {
            throw InputError(source: runDirectory + "/manifest.json", "\(error)")
        }
        let data = try ComparisonData.load(runDirectories: [runDirectory])
        let fm = FileManager.default
        let target = path(of: name)
        if fm.fileExists(atPath: target), !replace {
            throw InputError(
                source: target,
                "a baseline named \"\(name)\" exists (saved from \((try? entry(at: target))?.source ?? "an unknown run")); give --replace to overwrite it"
            )
        }
        let entry = Entry(
            name: name, savedAt: Record.rfc3339(now), source: runDirectory, runID: manifest.runID,
            matrixFile: manifest.matrixFile, matrixHash: manifest.matrixHash, linkMode: manifest.linkMode.rawValue,
            records: data.points.count, scenarios: data.scenarios.count, labels: data.labels, note: manifest.note)
        let staging = directory + "/.\(name).saving-\(getpid())"
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try? fm.removeItem(atPath: staging)
            try fm.createDirectory(atPath: staging, withIntermediateDirectories: false)
            for f in Self.files { try fm.copyItem(atPath: runDirectory + "/" + f, toPath: staging + "/" + f) }
            try (JSONCoding.encode(entry).prettyText + "\n").write(toFile: staging + "/" + Self.entryFile, atomically: true, encoding: .utf8)
            if fm.fileExists(atPath: target) {
                let old = directory + "/.\(name).replaced-\(getpid())"
                try fm.moveItem(atPath: target, toPath: old)
                try fm.moveItem(atPath: staging, toPath: target)
                try? fm.removeItem(atPath: old)
            } else {
                try fm.moveItem(atPath: staging, toPath: target)
            }
        } catch {
            try? fm.removeItem(atPath: staging)
            throw InputError(source: target, "cannot save the baseline: \(error.localizedDescription)")
        }
        return entry
    }

    /// Every saved baseline, by name; folders without a readable `baseline.json` are
    /// named in `problems`, not hidden.
    public func list() -> (entries: [Entry], problems: [String]) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else { return ([], []) }
        var entries: [Entry] = [], problems: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            do { entries.append(try entry(at: path(of: name))) } catch { problems.append("\(path(of: name)): \(error)") }
        }
        return (entries, problems)
    }

    func entry(at folder: String) throws(InputError) -> Entry {
        let file = folder + "/" + Self.entryFile
        guard let bytes = FileManager.default.contents(atPath: file) else {
            throw InputError(source: file, "missing or unreadable: not a saved baseline")
        }
        do { return try JSONCoding.decode(Entry.self, from: bytes) } catch { throw InputError(source: file, "not a baseline entry: \(error)") }
    }

    /// The folder `compare --baseline X` reads: `X` itself when it is a folder (a run
    /// folder, as before names existed), else the saved baseline named `X`.
    public func resolve(_ nameOrFolder: String) throws(InputError) -> String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: nameOrFolder, isDirectory: &isDir), isDir.boolValue { return nameOrFolder }
        let saved = list().entries.map(\.name)
        guard (try? Self.check(name: nameOrFolder)) != nil, saved.contains(nameOrFolder) else {
            let known = saved.isEmpty ? "none saved in \(directory)" : "saved in \(directory): " + saved.joined(separator: ", ")
            throw InputError(
                source: nameOrFolder, "neither a run folder nor a saved baseline (\(known)); save one with `peerbench baseline save NAME RUN_DIR`")
        }
        return path(of: nameOrFolder)
    }
}
