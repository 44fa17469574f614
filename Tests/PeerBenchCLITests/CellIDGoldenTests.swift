import Foundation
import Testing

/// Cell ids are what `compare --baseline`, `--resume`, `merge` and every saved record
/// join on: they must not move when a plugin gains an option or a default changes
/// (issue 42, item 1). `Golden/cell-ids.json` pins the id of every cell of every
/// built-in matrix and test fixture, and of the matrices as they were at 76d47e4 (the
/// ids users hold; copies under `Golden/76d47e4/`, ids from a 76d47e4 build's
/// `run --dry-run`). A moved id fails here until the golden file is updated in the same
/// commit, with a line in docs/RECORDS.md ("Cell ids") saying why.
@Suite struct CellIDGoldenTests {
    static let golden = CLI.packageRoot + "/Tests/PeerBenchCLITests/Golden"
    /// quic's certificate paths default to the bundled `certs/` directory's absolute
    /// path, which its ids hash (as 76d47e4's did): fixed here, so the ids do not depend
    /// on where the package is checked out. The files need not exist for a dry run.
    static let certs = "/peerbench/certs"

    /// The built-in matrices and fixtures (found, so a new one without golden ids fails)
    /// and the 76d47e4 copies, as paths from the package root, with the golden file's key.
    static func matrixFiles() -> [(key: String, path: String)] {
        let fm = FileManager.default
        var out: [(String, String)] = [("matrix.json", "matrix.json")]
        for m in ((try? fm.contentsOfDirectory(atPath: CLI.packageRoot + "/matrices")) ?? []).sorted() where m.hasSuffix(".json") {
            out.append(("matrices/" + m, "matrices/" + m))
        }
        for dir in ["plugins", "Tests/PeerBenchCLITests/Golden/76d47e4"] {
            let root = CLI.packageRoot + "/" + dir
            for f in (fm.subpaths(atPath: root) ?? []).sorted() where f.hasSuffix(".json") {
                let path = dir + "/" + f
                out.append((dir == "plugins" ? path : "76d47e4/" + f, path))
            }
        }
        return out
    }

    /// Each repetition-1 cell of `path` as the dry run lists it: summary -> id.
    static func ids(of path: String) throws -> [String: String] {
        let r = try CLI.run(["run", path, "--dry-run"], environment: ["PEERBENCH_CERTS": certs])
        guard r.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "dry run of \(path): \(r.stderr)"])
        }
        let text = r.stdout
        // Rows "N  summary  <16 hex>#1  estimate".
        let row = /^\d+\s+(.+?)\s+([0-9a-f]{16})#1\s/
        var ids: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if let m = String(line).firstMatch(of: row) { ids[String(m.1)] = String(m.2) }
        }
        return ids
    }

    static func goldenIDs() throws -> [String: [String: String]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: golden + "/cell-ids.json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: [String: String]]
    }

    @Test("every cell of every built-in matrix, test fixture and 76d47e4 matrix has the id Golden/cell-ids.json pins")
    func idsMatchTheGoldenFile() throws {
        let golden = try Self.goldenIDs()
        let files = Self.matrixFiles()
        #expect(files.count >= 20, "the built-in matrices, fixtures and 76d47e4 copies were found: \(files.map(\.path))")
        for (key, path) in files {
            guard let pinned = golden[key] else {
                Issue.record("\(path) has no entry \"\(key)\" in Tests/PeerBenchCLITests/Golden/cell-ids.json: add its ids")
                continue
            }
            let now = try Self.ids(of: path)
            #expect(!now.isEmpty, "\(path): the dry run listed no cells")
            var moved: [String] = []
            for (summary, id) in pinned.sorted(by: { $0.key < $1.key }) where now[summary] != id {
                moved.append("\(summary): \(id) -> \(now[summary] ?? "no such cell")")
            }
            for summary in now.keys.sorted() where pinned[summary] == nil { moved.append("\(summary): new cell \(now[summary]!)") }
            #expect(
                moved.isEmpty,
                """
                \(path): \(moved.count) of \(pinned.count) cell ids moved (update Golden/cell-ids.json in the same commit, with a \
                line in docs/RECORDS.md "Cell ids" saying why):
                \(moved.prefix(20).joined(separator: "\n"))
                """)
        }
        for key in golden.keys.sorted() where !files.contains(where: { $0.key == key }) {
            Issue.record("Golden/cell-ids.json has ids for \(key), which is no longer a built-in matrix or fixture: remove them")
        }
    }

    /// The written-options rule on its own, through the same dry run: an option a
    /// plugin gained after 76d47e4 (tcp's `congestionControl`) moves nothing until a
    /// matrix writes it; written, it moves the id, as a written wifi setting does.
    @Test("an option joins the id only when the matrix writes it")
    func onlyWrittenOptionsJoinTheID() throws {
        let d = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        func id(_ entry: String) throws -> String {
            try CLI.write(
                """
                {"name": "ids", "transports": [\(entry)],
                 "matrix": {"environments": ["free-field"], "distances": [10], "payloads": {"counts": [100], "sizes": [128]}}}
                """, to: d + "/m.json")
            return try #require(Self.ids(of: d + "/m.json").values.first, "\(entry) lists a cell")
        }
        let plain = try id(#"{"plugin": "tcp", "label": "tcp"}"#)
        #expect(
            try id(#"{"plugin": "tcp", "label": "tcp", "options": {"noDelay": false}}"#) == plain,
            "a written option at its 76d47e4 default hashes as left out")
        #expect(try id(#"{"plugin": "tcp", "label": "tcp", "options": {"congestionControl": null}}"#) == plain, "null reads as not written")
        let cubic = try id(#"{"plugin": "tcp", "label": "tcp", "options": {"congestionControl": "cubic"}}"#)
        #expect(cubic != plain, "a written option moves the id")
        #expect(try id(#"{"plugin": "tcp", "label": "tcp", "options": {"userTimeoutMs": 1500}}"#) != plain)
        #expect(try id(#"{"plugin": "tcp", "label": "tcp", "options": {"keepAlive": {"idleSeconds": 3}}}"#) != plain)
        #expect(try id(#"{"plugin": "tcp", "label": "tcp", "wifi": {"performanceMode": "realtime"}}"#) != plain)
    }
}
