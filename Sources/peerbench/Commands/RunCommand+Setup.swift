import Foundation
import PeerBenchCore
import PeerBenchPlugin

/// Everything `run` decides before the first cell: the plan, the folder, which cells
/// are still to run, and — on resume — that the matrix and options match the run.
struct RunSetup {
    var plan: RunPlan
    var dir: RunDirectory?
    var runID: String
    var linkMode: LinkMode
    var pending: [Cell]
    var alreadyRecorded: Int
    var warnings: [String] = []
    /// The manifest of the run being resumed.
    var previous: Manifest?
    var resumeCommand: String

    static func prepare(_ c: RunCommand, registry: PluginRegistry, linkModel: any LinkModel) throws -> RunSetup {
        var warnings: [String] = []
        var previous: Manifest?
        var dir: RunDirectory?
        var journal: JournalContents?
        if let path = c.resume {
            if c.dryRun {
                // A dry run changes nothing, not even a torn tail.
                let d = RunDirectoryReader(path: path)
                previous = try d.manifest()
                journal = RunDirectory.readJournal(at: path + "/records.jsonl")
                if journal?.torn != nil { warnings.append("\(path)/records.jsonl has a torn or invalid line; resuming will set it aside") }
            } else {
                let (d, w) = try RunDirectory.openForResume(path)
                dir = d
                warnings += w
                previous = try? d.readManifest()
                journal = d.readRecords()
            }
        }
        let matrixPath = c.matrix ?? previous?.matrixFile ?? "matrix.json"
        let options = try resolveOptions(c, previous: previous, matrixPath: matrixPath)
        let loader = MatrixLoader(registry: registry, linkModel: linkModel)
        let matrix: Matrix
        if c.matrix == nil, let embedded = previous?.matrix, !FileManager.default.fileExists(atPath: matrixPath) {
            // Resuming from another folder (a scheduler's working directory): the
            // manifest's own copy of the matrix is the run's matrix by definition.
            do { matrix = try loader.parse(Array(embedded.compactText.utf8)) } catch { throw error.attributed(to: "\(c.resume!)/manifest.json") }
            warnings.append("\(matrixPath) not found from here; using the copy of the matrix in \(c.resume!)/manifest.json")
        } else {
            matrix = try loader.load(path: matrixPath)
        }
        if let previous, previous.matrixHash != matrix.hash {
            let changes = MatrixDiff.describe(old: previous.matrix, new: matrix.document)
            throw InputError(source: "--resume", "\(c.resume!) was run with a different matrix than \(matrixPath) now holds: "
                + changes.joined(separator: "; ")
                + ". Resume with the matrix the run started with (its copy is under \"matrix\" in \(c.resume!)/manifest.json), or start a new run with --out")
        }
        if options.link == .remote { try RemoteRun.checkDistances(matrix, matrixPath: matrixPath) }
        try matrix.checkScenarios(linkMode: options.link, matrixFile: matrixPath)
        var plan = try RunPlan(matrix: matrix, options: options.run, linkModel: linkModel, registry: registry)
        if options.link == .remote { plan.links = plan.links.mapValues(RemoteRun.asWritten) }
        let runID = previous?.runID ?? RunCommand.makeRunID()
        var records: [Record] = []
        if let journal, let path = c.resume {
            // Only the run's own records say which cells are done; anything else in
            // the journal is reported, line by line, and its cells run again.
            let (own, foreign) = journal.belonging(toRun: runID, cells: Set(plan.cells.map(\.key)), journal: path + "/records.jsonl")
            records = own
            warnings += foreign
        }
        // A past run, or the cells already run, tell how long the rest will take on this machine.
        if let past = c.calibrateFrom { try plan.calibrate(fromRunFolder: past) }
        if let path = c.resume, !records.isEmpty { plan.calibrate(from: records, source: path) }
        let index = JournalIndex(records: records)
        let pending = index.pending(plan.cells, retryFailed: c.retryFailed)
        if c.resume == nil, let out = c.out, !c.dryRun {
            dir = try RunDirectory.create(out, for: plan.matrix)
        }
        let folder = c.resume ?? c.out ?? "OUT"
        var cmd = ["peerbench", "run", matrixPath, "--resume", folder]
        if c.isolation != .process { cmd += ["--isolation", c.isolation.rawValue] }
        if c.field.interactive { cmd += ["--interactive"] }
        if options.link == .remote { cmd += ["--peer", c.peer ?? "HOST", "--psk-file", c.pskFile ?? "FILE"] }
        return RunSetup(plan: plan, dir: dir, runID: runID,
                        linkMode: options.link, pending: pending, alreadyRecorded: plan.cells.count - pending.count,
                        warnings: warnings, previous: previous, resumeCommand: cmd.map(shellQuoted).joined(separator: " "))
    }

    /// The run's options: from the command line for a new run; from the manifest on
    /// resume, where a conflicting command-line value is refused (it would change
    /// which cells exist, or how they are seeded or run).
    static func resolveOptions(_ c: RunCommand, previous: Manifest?, matrixPath: String) throws(InputError) -> (run: RunOptions, link: LinkMode) {
        let cliTransports = c.transports.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        var shard: Shard? = nil
        if let s = c.shard { shard = try Shard(parsing: s) }
        guard let m = previous else {
            return (RunOptions(matrixFile: matrixPath, commandLine: CommandLine.arguments, transports: cliTransports, seed: c.seed,
                               repetitions: c.repetitions?.count, cellTimeoutSeconds: c.cellTimeout, order: c.order, shard: shard, note: c.note,
                               autoRepetitions: c.repetitions?.isAuto),
                    c.link ?? RunCommand.defaultLink)
        }
        var problems: [InputProblem] = []
        func check(_ flag: String, _ given: String?, _ stored: String?) {
            if let given, given != stored {
                problems.append(InputProblem(source: flag, path: nil, "\(given) differs from the run being resumed (\(stored ?? "not set")); leave \(flag) out to resume, or start a new run with --out"))
            }
        }
        let seed: UInt64? = m.seed
        let reps: Int? = m.repetitions
        let labels: [String]? = m.transports
        let link = m.linkMode
        let order: CellOrder? = m.order
        let storedShard = m.shard.flatMap { try? Shard(parsing: $0) }
        check("--seed", c.seed.map(String.init), seed.map(String.init))
        let storedReps = m.autoRepetitions.map { "auto:\($0.max)" } ?? reps.map(String.init)
        // `auto` without MAX resumes whatever MAX the run has.
        let givenReps = c.repetitions.map { $0.isAuto && $0.count == nil ? (m.autoRepetitions.map { "auto:\($0.max)" } ?? "auto") : $0.spelling }
        check("--repetitions", givenReps, storedReps)
        check("--transports", cliTransports?.joined(separator: ","), labels?.joined(separator: ","))
        check("--link", c.link?.rawValue, link.rawValue)
        check("--order", c.order?.rawValue, order?.rawValue)
        check("--shard", shard?.description, storedShard?.description)
        if !problems.isEmpty { throw InputError(problems) }
        let timeout = c.cellTimeout ?? m.cellTimeoutSeconds
        return (RunOptions(matrixFile: matrixPath, commandLine: CommandLine.arguments, transports: labels, seed: seed, repetitions: reps,
                           cellTimeoutSeconds: timeout, order: order, shard: storedShard, note: c.note ?? m.note,
                           autoRepetitions: m.autoRepetitions != nil), link)
    }
}

/// Reads a run folder without opening (or locking) its journal, for dry runs.
struct RunDirectoryReader {
    var path: String
    func manifest() throws(InputError) -> Manifest {
        guard let data = FileManager.default.contents(atPath: path + "/manifest.json") else {
            throw InputError(source: "--resume", "\(path) has no manifest.json, so it is not a peerbench run folder")
        }
        do { return try Manifest(bytes: data) } catch { throw InputError(source: "--resume", "\(path)/manifest.json \(error)") }
    }
}

/// Quotes a word for a POSIX shell when it needs it, so a printed command can be pasted.
func shellQuoted(_ s: String) -> String {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%")
    if !s.isEmpty && s.allSatisfy({ safe.contains($0) }) { return s }
    return "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
