import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Everything a run decides before the first cell: the plan, the folder, which cells
/// are still to run, and — on resume — that the matrix and options match the run.
struct RunSetup {
    var plan: RunPlan
    /// The run folder, open and locked; nil for a dry run.
    var dir: RunDirectory?
    var runID: String
    var linkMode: LinkMode
    /// The matrix file as resolved: the request's, the resumed run's own, or ./matrix.json.
    var matrixFile: String
    var pending: [Cell]
    var alreadyRecorded: Int
    var warnings: [String] = []
    /// The manifest of the run being resumed.
    var previous: Manifest?

    static func prepare(_ r: RunRequest, registry: PluginRegistry, linkModel: any LinkModel) throws -> RunSetup {
        if !r.dryRun && r.folder == nil { throw InputError("give --out DIR for a new run, or --resume DIR to continue one") }
        var resumed: ResumedFolder?
        if let path = r.resume { resumed = try ResumedFolder.open(path, dryRun: r.dryRun) }
        var warnings = resumed?.warnings ?? []
        let previous = resumed?.manifest
        let matrixFile = r.matrixFile ?? previous?.matrixFile ?? "matrix.json"
        let options = try resolveOptions(r, previous: previous, matrixPath: matrixFile)
        let matrix = try loadMatrix(
            r, previous: previous, matrixFile: matrixFile,
            loader: MatrixLoader(registry: registry, linkModel: linkModel), warnings: &warnings)
        var plan = try makePlan(matrix, options: options, matrixFile: matrixFile, linkModel: linkModel, registry: registry)
        let runID = previous?.runID ?? makeRunID()
        var records: [Record] = []
        if let resumed {
            // Only the run's own records say which cells are done; anything else in
            // the journal is reported, line by line, and its cells run again.
            let (own, foreign) = resumed.journal.belonging(
                toRun: runID, cells: Set(plan.cells.map(\.key)),
                journal: resumed.path + "/records.jsonl")
            records = own
            warnings += foreign
        }
        // A past run, or the cells already run, tell how long the rest will take on this machine.
        if let past = r.calibrateFrom { try plan.calibrate(fromRunFolder: past) }
        if let path = r.resume, !records.isEmpty { plan.calibrate(from: records, source: path) }
        var pending = JournalIndex(records: records).pending(plan.cells, retryFailed: r.retryFailed)
        if plan.matrix.transportsAtOnce { pending = RunSetup.wholeBlocks(of: pending, in: plan.cells) }
        var dir = resumed?.dir
        if r.resume == nil, let out = r.out, !r.dryRun {
            dir = try RunDirectory.create(out, for: plan.matrix)
        }
        return RunSetup(
            plan: plan, dir: dir, runID: runID, linkMode: options.link, matrixFile: matrixFile, pending: pending,
            alreadyRecorded: plan.cells.count - pending.count, warnings: warnings, previous: previous)
    }

    /// Where this run continues from, for the resume command.
    var resumePoint: RunResumePoint? {
        dir.map { RunResumePoint(matrixFile: matrixFile, folder: $0.path, link: linkMode) }
    }

    /// The matrix of the run: the file, or — resuming from another folder (a
    /// scheduler's working directory) without it — the manifest's own copy, which is
    /// the run's matrix by definition. On resume it must be the matrix the run started with.
    static func loadMatrix(
        _ r: RunRequest, previous: Manifest?, matrixFile: String, loader: MatrixLoader,
        warnings: inout [String]
    ) throws -> Matrix {
        let matrix: Matrix
        if r.matrixFile == nil, let embedded = previous?.matrix, let resume = r.resume, !FileManager.default.fileExists(atPath: matrixFile) {
            do { matrix = try loader.parse(Array(embedded.compactText.utf8)) } catch { throw error.attributed(to: "\(resume)/manifest.json") }
            warnings.append("\(matrixFile) not found from here; using the copy of the matrix in \(resume)/manifest.json")
        } else {
            matrix = try loader.load(path: matrixFile)
        }
        if let previous, let resume = r.resume, previous.matrixHash != matrix.hash {
            let changes = MatrixDiff.describe(old: previous.matrix, new: matrix.document)
            throw InputError(
                source: "--resume",
                "\(resume) was run with a different matrix than \(matrixFile) now holds: "
                    + changes.joined(separator: "; ")
                    + ". Resume with the matrix the run started with (its copy is under \"matrix\" in \(resume)/manifest.json), or start a new run with --out"
            )
        }
        return matrix
    }

    /// The matrix narrowed by the options, checked against the link: over a real link
    /// only distances in metres, and the link as the matrix writes it.
    static func makePlan(
        _ matrix: Matrix, options: (run: RunOptions, link: LinkMode), matrixFile: String, linkModel: any LinkModel,
        registry: PluginRegistry
    ) throws -> RunPlan {
        if options.link == .remote { try RemoteRun.checkDistances(matrix, matrixPath: matrixFile) }
        try matrix.checkScenarios(linkMode: options.link, matrixFile: matrixFile)
        if options.link == .remote && matrix.transportsAtOnce {
            // The peer (`peerbench serve`) runs one cell's server at a time.
            throw InputError(
                source: matrixFile, path: JSONPath.root.key("transportsAtOnce").description,
                "transports cannot run at once over --link remote (the peer serves one cell at a time); run this matrix over --link emulated or none, or remove the key"
            )
        }
        var plan = try RunPlan(matrix: matrix, options: options.run, linkModel: linkModel, registry: registry)
        if options.link == .remote { plan.links = plan.links.mapValues(RemoteRun.asWritten) }
        return plan
    }

    /// A new run's id: its start time (UTC) and a random suffix, e.g. `20250601T101500Z-0a1b2c3d`.
    static func makeRunID() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return f.string(from: Date()) + "-" + String(repeating: "0", count: 8 - suffix.count) + suffix
    }
}

extension RunSetup {
    /// `transportsAtOnce`: a block whose cells are only partly recorded (a run killed
    /// between two of its appends, or `--retry-failed` picking one failed transport)
    /// runs again whole, so that every transport again shares the link with all the
    /// others; the new records of its already-recorded cells supersede the old ones
    /// (the last record of a cell wins). `cells`: the plan's cells in run order.
    static func wholeBlocks(of pending: [Cell], in cells: [Cell]) -> [Cell] {
        let wanted = Set(pending.map(\.key))
        guard !wanted.isEmpty else { return pending }
        return Runner.blockRanges(of: cells).flatMap { range in
            cells[range].contains { wanted.contains($0.key) } ? Array(cells[range]) : []
        }
    }
}
