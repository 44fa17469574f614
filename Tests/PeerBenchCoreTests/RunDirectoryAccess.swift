import Foundation

@testable import PeerBenchCore
@testable import PeerBenchPlugin

/// Opens an existing run folder the way resume will, for tests of export and reading.
enum RunDirectoryAccess {
    static func open(_ path: String) -> RunDirectory { RunDirectory(path: path) }
}

/// Complete records and manifests for journal tests: typed readers refuse partial ones.
enum Fixtures {
    static func record(
        _ cellID: String, _ repetition: Int = 1, status: CellStatus = .ok, runID: String = "r",
        label: String = "a", environment: String = "forest", mbps: Double? = nil
    ) -> Record {
        var r = Record.template
        r.runID = runID
        r.cellID = cellID
        r.repetition = repetition
        r.status = status
        r.transport.label = label
        r.environment = environment
        r.throughputMbps = mbps
        return r
    }

    static func line(_ cellID: String, _ repetition: Int = 1, status: CellStatus = .ok) -> String {
        record(cellID, repetition, status: status).json.compactText
    }

    /// A manifest of a one-cell matrix, with the given hash and cell count.
    static func manifest(hash: String = "x", cellsTotal: Int = 3) throws -> Manifest {
        let matrix = try parse(matrixText())
        let plan = try RunPlan(matrix: matrix, options: RunOptions(matrixFile: "t.json", commandLine: []), linkModel: FakeLinkModel())
        var m = Manifest(
            runID: "r", plan: plan, linkMode: .none, startedAt: Date(), endedAt: nil, status: "running", summary: nil,
            versions: [:])
        m.matrixHash = hash
        m.matrixCellsTotal = cellsTotal
        return m
    }

    static func writeManifest(_ m: Manifest, in folder: String) throws {
        try Data(m.json.prettyText.utf8).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
    }
}
