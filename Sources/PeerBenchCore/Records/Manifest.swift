import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// `manifest.json` (schema `peerbench.manifest/1`): what ran, where, with which
/// versions, and how it ended. Written by `run` (at start, at the end and from the
/// signal handler) and by `merge`; read back by `--resume`, `merge` and `compare`.
/// Like records, every key is written, absent values as `null`.
public struct Manifest: Sendable, Equatable, Codable {
    public static let currentSchema = "peerbench.manifest/1"
    public static let peerbenchVersion = "0.1.0"

    public var schema: String
    public var runID: String
    /// `running`, `complete`, `interrupted`, `failed`, `merged`.
    public var status: String
    public var matrixFile: String
    public var matrixHash: String
    public var commandLine: [String]
    public var startedAt: String
    public var endedAt: String?
    public var linkMode: LinkMode
    public var seed: UInt64
    public var repetitions: Int
    public var cellTimeoutSeconds: Double
    /// The transport labels this run covers (after `--transports`).
    public var transports: [String]
    public var cellsTotal: Int
    public var order: CellOrder
    /// `K/N` for a shard, nil for a whole run.
    public var shard: String?
    public var matrixCellsTotal: Int
    public var summary: StatusCounts?
    /// `process` or `none`.
    public var isolation: String?
    public var cellsRecorded: Int?
    public var interruptedCell: InterruptedCell?
    public var sessions: [Session]?
    /// Set by `merge`: the folders it combined.
    public var mergedFrom: [MergeSource]?
    /// Set by `merge --allow-incomplete` when cells of the matrix had no record.
    public var incomplete: Incomplete?
    /// Set by `merge`: lines of the inputs that were not records of their folder's run
    /// (kept in set-aside.jsonl, not merged).
    public var setAside: Int?
    public var host: Host
    /// The Slurm node this run (its latest session) ran on: `SLURMD_NODENAME`, or the
    /// hostname outside Slurm. Null in merged folders (`merged_from` names each
    /// input's node) and in manifests of older versions.
    public var node: String?
    /// `peerbench`, `swift_compiler`, then each plugin's libraries, by name.
    public var versions: Versions
    /// The matrix document as loaded, so a run can be resumed or audited without its file.
    public var matrix: JSONValue
    /// What this machine could resolve when the (latest) session started; nil for
    /// merged folders and runs of older versions.
    public var measurementFloor: MeasurementFloor?
    /// `"repetitions": "auto"`: the rule, and how many repetitions each scenario got and
    /// why it stopped; null for a fixed count.
    public var autoRepetitions: AutoRepetitions.Report?
    /// `run --note TEXT`: which run this is, in the words of whoever ran it; kept on
    /// resume. Shown by `compare`, `baseline list` and `report`.
    public var note: String?

    /// The longest `--note` (characters).
    static let maxNoteLength = 200

    /// Why `text` cannot be a note, or nil: at most `maxNoteLength` characters, one line
    /// (a line break or other control character would forge lines in what shows it).
    public static func noteProblem(_ text: String) -> String? {
        if text.count > maxNoteLength { return "is \(text.count) characters; at most \(maxNoteLength)" }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a line break or another control character; give one line"
        }
        return nil
    }

    public struct InterruptedCell: Sendable, Equatable, Codable {
        public var cellID: String
        public var repetition: Int
        public var summary: String
        enum CodingKeys: String, CodingKey { case cellID = "cell_id", repetition, summary }
    }

    /// One invocation of `run` on this folder (a resumed run has several).
    public struct Session: Sendable, Equatable, Codable {
        public var startedAt: String
        public var endedAt: String?
        public var status: String
        public var commandLine: [String]
        /// The node this session ran on (`Manifest.currentNode`); a requeued shard's
        /// sessions name each node it ran on.
        public var node: String?
        enum CodingKeys: String, CodingKey { case startedAt = "started_at", endedAt = "ended_at", status, commandLine = "command_line", node }
    }

    public struct MergeSource: Sendable, Equatable, Codable {
        public var path: String
        public var runID: String
        public var shard: String?
        public var status: String
        public var records: Int
        var recordsKept: Int
        /// The input's `node`.
        public var node: String?
        enum CodingKeys: String, CodingKey { case path, runID = "run_id", shard, status, records, recordsKept = "records_kept", node }
    }

    /// What an incomplete merge lacks.
    public struct Incomplete: Sendable, Equatable, Codable {
        public var cellsMissing: Int
        /// `K/N` of the shards no folder was given for.
        public var shardsMissing: [String]
        /// Folders with fewer records than cells of their own.
        public var unfinished: [Folder]

        public struct Folder: Sendable, Equatable, Codable {
            public var path: String
            public var shard: String?
            public var status: String
            public var cellsRecorded: Int
            public var cellsTotal: Int
            enum CodingKeys: String, CodingKey { case path, shard, status, cellsRecorded = "cells_recorded", cellsTotal = "cells_total" }
        }
        enum CodingKeys: String, CodingKey { case cellsMissing = "cells_missing", shardsMissing = "shards_missing", unfinished }
    }

    public struct Host: Sendable, Equatable, Codable {
        var hostname: String
        var os: String
        public var kernel: String
        public var machine: String
        var cpus: Int
        var memoryBytes: UInt64
        enum CodingKeys: String, CodingKey { case hostname, os, kernel, machine, cpus, memoryBytes = "memory_bytes" }

        /// This machine.
        public static func current() -> Host {
            var u = utsname()
            uname(&u)
            func text<T>(_ t: T) -> String {
                withUnsafeBytes(of: t) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            let info = ProcessInfo.processInfo
            return Host(
                hostname: info.hostName, os: info.operatingSystemVersionString,
                kernel: "\(text(u.sysname)) \(text(u.release)) \(text(u.version))", machine: text(u.machine),
                cpus: info.activeProcessorCount, memoryBytes: info.physicalMemory)
        }
    }

    enum CodingKeys: String, CodingKey {
        case schema, runID = "run_id", status, matrixFile = "matrix_file", matrixHash = "matrix_hash", commandLine = "command_line"
        case startedAt = "started_at", endedAt = "ended_at", linkMode = "link_mode", seed, repetitions
        case cellTimeoutSeconds = "cell_timeout_seconds", transports, cellsTotal = "cells_total", order, shard
        case matrixCellsTotal = "matrix_cells_total", summary, isolation, cellsRecorded = "cells_recorded"
        case interruptedCell = "interrupted_cell", sessions, mergedFrom = "merged_from", incomplete
        case setAside = "set_aside", host, node, versions, matrix
        case measurementFloor = "measurement_floor", note, autoRepetitions = "auto_repetitions"
    }

    /// The manifest of a run of `plan`.
    public init(
        runID: String, plan: RunPlan, linkMode: LinkMode, startedAt: Date, endedAt: Date?, status: String,
        summary: RunSummary?, versions: [String: String]
    ) {
        schema = Manifest.currentSchema
        self.runID = runID
        self.status = status
        matrixFile = plan.options.matrixFile
        matrixHash = plan.matrix.hash
        commandLine = plan.options.commandLine
        self.startedAt = Record.rfc3339(startedAt)
        self.endedAt = endedAt.map(Record.rfc3339)
        self.linkMode = linkMode
        seed = plan.matrix.runSeed(plan.options.seed)
        repetitions = plan.options.repetitions ?? plan.matrix.repetitions
        cellTimeoutSeconds = plan.matrix.cellTimeoutSeconds
        transports = plan.matrix.transports.map(\.label)
        cellsTotal = plan.cells.count
        order = plan.order
        shard = plan.options.shard?.description
        matrixCellsTotal = plan.matrixCellCount
        self.summary = summary.map(StatusCounts.init)
        host = .current()
        self.versions = Versions(libraries: versions)
        matrix = plan.matrix.document
        note = plan.options.note
    }

    /// Reads `manifest.json` text; throws a sentence naming what is wrong.
    public init(bytes: some Collection<UInt8>) throws {
        let json: JSONValue
        do { json = try JSONParser.parse(Array(bytes)) } catch { throw ManifestError("not valid JSON: \(error)") }
        guard json.objectValue != nil else { throw ManifestError("holds \(json.typeName), not a manifest object") }
        guard json["schema"]?.stringValue == Manifest.currentSchema else {
            throw ManifestError(
                "is not a peerbench manifest (schema \(json["schema"]?.compactText ?? "missing"), expected \"\(Manifest.currentSchema)\")")
        }
        do { self = try JSONCoding.decode(Manifest.self, from: json) } catch { throw ManifestError(JSONCoding.describe(error)) }
    }

    public var json: JSONValue { (try? JSONCoding.encode(self)) ?? .null }

    /// The node a run is on: Slurm's `SLURMD_NODENAME` in a job, else this machine's
    /// hostname (what `hostname` prints; in a container or UTS namespace, its own).
    public static func currentNode(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let name = environment["SLURMD_NODENAME"], !name.isEmpty { return name }
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return ProcessInfo.processInfo.hostName }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func rfc3339(_ date: Date) -> String { Record.rfc3339(date) }

    var startedDate: Date? { Manifest.parseDate(startedAt) }

    static func parseDate(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: s)
    }
}
