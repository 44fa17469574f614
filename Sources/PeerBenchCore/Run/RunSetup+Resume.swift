import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// The folder of a run being resumed, as the setup reads it.
struct ResumedFolder {
    var path: String
    /// Open and locked, the torn tail repaired; nil for a dry run, which changes nothing.
    var dir: RunDirectory?
    var manifest: Manifest?
    var journal: JournalContents
    var warnings: [String]

    static func open(_ path: String, dryRun: Bool) throws(InputError) -> ResumedFolder {
        if dryRun {
            // A dry run changes nothing, not even a torn tail.
            let manifest = try readManifest(path)
            let journal = RunDirectory.readJournal(at: path + "/records.jsonl")
            let warnings = journal.torn == nil ? [] : ["\(path)/records.jsonl has a torn or invalid line; resuming will set it aside"]
            return ResumedFolder(path: path, dir: nil, manifest: manifest, journal: journal, warnings: warnings)
        }
        let (d, warnings) = try RunDirectory.openForResume(path)
        return ResumedFolder(path: path, dir: d, manifest: try? d.readManifest(), journal: d.readRecords(), warnings: warnings)
    }

    /// A run folder's manifest, read without opening (or locking) its journal.
    static func readManifest(_ path: String) throws(InputError) -> Manifest {
        guard let data = FileManager.default.contents(atPath: path + "/manifest.json") else {
            throw InputError(source: "--resume", "\(path) has no manifest.json, so it is not a peerbench run folder")
        }
        do { return try Manifest(bytes: data) } catch { throw InputError(source: "--resume", "\(path)/manifest.json \(error)") }
    }
}

extension RunSetup {
    /// The run's options: from the request for a new run; from the manifest on resume,
    /// where a conflicting requested value is refused (it would change which cells
    /// exist, or how they are seeded or run).
    static func resolveOptions(_ r: RunRequest, previous: Manifest?, matrixPath: String) throws(InputError) -> (run: RunOptions, link: LinkMode) {
        guard let m = previous else {
            return (
                RunOptions(
                    matrixFile: matrixPath, commandLine: r.commandLine, transports: r.transports, seed: r.seed,
                    repetitions: r.repetitions?.count, cellTimeoutSeconds: r.cellTimeoutSeconds, order: r.order, shard: r.shard,
                    note: r.note, autoRepetitions: r.repetitions?.isAuto),
                r.link ?? r.defaultLink
            )
        }
        let storedShard = m.shard.flatMap { try? Shard(parsing: $0) }
        try checkResumable(r, against: m, storedShard: storedShard)
        let timeout = r.cellTimeoutSeconds ?? m.cellTimeoutSeconds
        return (
            RunOptions(
                matrixFile: matrixPath, commandLine: r.commandLine, transports: m.transports, seed: m.seed,
                repetitions: m.repetitions, cellTimeoutSeconds: timeout, order: m.order, shard: storedShard,
                note: r.note ?? m.note, autoRepetitions: m.autoRepetitions != nil), m.linkMode
        )
    }

    /// Refuses every requested value that differs from the resumed run's, naming each.
    static func checkResumable(_ r: RunRequest, against m: Manifest, storedShard: Shard?) throws(InputError) {
        var problems: [InputProblem] = []
        func check(_ flag: String, _ given: String?, _ stored: String?) {
            if let given, given != stored {
                problems.append(
                    InputProblem(
                        source: flag, path: nil,
                        "\(given) differs from the run being resumed (\(stored ?? "not set")); leave \(flag) out to resume, or start a new run with --out"
                    ))
            }
        }
        let seed: UInt64? = m.seed
        let reps: Int? = m.repetitions
        let labels: [String]? = m.transports
        let order: CellOrder? = m.order
        check("--seed", r.seed.map(String.init), seed.map(String.init))
        let storedReps = m.autoRepetitions.map { "auto:\($0.max)" } ?? reps.map(String.init)
        // `auto` without MAX resumes whatever MAX the run has.
        let givenReps = r.repetitions.map { $0.isAuto && $0.count == nil ? (m.autoRepetitions.map { "auto:\($0.max)" } ?? "auto") : $0.spelling }
        check("--repetitions", givenReps, storedReps)
        check("--transports", r.transports?.joined(separator: ","), labels?.joined(separator: ","))
        check("--link", r.link?.rawValue, m.linkMode.rawValue)
        check("--order", r.order?.rawValue, order?.rawValue)
        check("--shard", r.shard?.description, storedShard?.description)
        if !problems.isEmpty { throw InputError(problems) }
    }
}
