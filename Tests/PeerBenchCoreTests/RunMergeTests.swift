import Foundation
import Testing

@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

/// `peerbench merge` through the core API: agreement, completeness, foreign lines,
/// samples, duplicates.
@Suite struct RunMergeTests {
    /// A shard folder: manifest of run `run` (shard `shard` of a `total`-cell matrix,
    /// `own` cells of its own) and the given journal lines.
    func shard(
        run: String = "r1", hash: String = "h1", shard: String? = nil, total: Int = 3, own: Int? = nil,
        status: String = "finished", schema: String = Manifest.currentSchema, lines: [String], samples: [String]? = nil,
        floor: MeasurementFloor? = nil, node: String? = nil
    ) throws -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("pb-merge-\(UUID())").path
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        var m = try Fixtures.manifest(hash: hash, cellsTotal: total)
        m.runID = run
        m.shard = shard
        m.status = status
        m.cellsTotal = own ?? total
        m.schema = schema
        m.measurementFloor = floor
        m.node = node
        try Fixtures.writeManifest(m, in: p)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: p + "/records.jsonl"))
        if let samples {
            try Data(samples.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: p + "/samples.jsonl"))
        }
        return p
    }

    func record(_ id: String, run: String = "r1", status: CellStatus = .ok) -> String {
        Fixtures.record(id, status: status, runID: run).json.compactText
    }

    func out() -> String { FileManager.default.temporaryDirectory.appendingPathComponent("pb-merged-\(UUID())").path }

    func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func duplicatesAreWrittenOnceAndTheLastRecordOfACellWins() throws {
        let a = try shard(run: "r1", shard: "1/2", own: 2, lines: [record("x"), record("y")])
        let b = try shard(run: "r2", shard: "2/2", own: 1, lines: [record("z", run: "r2", status: .failed)])
        let again = try shard(run: "r1", shard: "1/2", own: 2, lines: [record("x"), record("y", status: .timeout)])
        let o = out()
        let report = try RunMerge.merge([a, b, again], into: o)
        #expect(report.recordsWritten == 4)
        #expect(report.duplicatesDropped == 1)
        #expect(report.cellsMissing == 0)
        let manifest = try RunDirectory(path: o).readManifest()
        #expect(manifest?.status == "merged")
        #expect(manifest?.runID == "merged:r1+r2")
        #expect(manifest?.cellsTotal == 3)
        #expect(manifest?.summary?.counts[.failed] == 1)
        #expect(manifest?.summary?.counts[.timeout] == 1)
        #expect(manifest?.summary?.counts[.ok] == 1)
        #expect(manifest?.incomplete == nil)
        #expect(try lines(o + "/records.csv").count == 5)
        #expect { _ = try RunMerge.merge([a, b], into: o) } throws: { "\($0)".contains("already holds 4 records") }
    }

    /// A shard's floor: loopback RTT p50 of transport "s", the emulator's release p99,
    /// and the 1-minute load average on two allowed CPUs.
    func floor(p50Ms: Double, releaseP99: Int, load: Double) -> MeasurementFloor {
        MeasurementFloor(
            measuredAt: "2026-11-28T10:00:00Z",
            clock: .init(
                source: "CLOCK_MONOTONIC", resolutionNanos: 1, readDeltaMinNanos: 20, readDeltaP50Nanos: 30,
                readDeltaP99Nanos: 40, reads: 100),
            loopbackRTT: [.init(label: "s", plugin: "scripted", probes: 200, p50Ms: p50Ms, p99Ms: p50Ms * 2, maxMs: 1, error: nil)],
            emulatorReleaseError: .init(packets: 1000, p50Micros: 30, p99Micros: releaseP99, calibration: "burst"),
            loadAverage: [load, load, load], cpusAllowed: 2)
    }

    @Test func shardsThatSawDifferentFloorsOrLoadsAreNamedInAWarning() throws {
        // Alike: within the margins (0.05 ms, 100 µs, 0.5 load per CPU): no warning.
        let a = try shard(shard: "1/3", own: 1, lines: [record("x")], floor: floor(p50Ms: 0.03, releaseP99: 90, load: 1.0), node: "node1")
        let b = try shard(shard: "2/3", own: 1, lines: [record("y")], floor: floor(p50Ms: 0.07, releaseP99: 180, load: 1.8), node: "node2")
        let c = try shard(shard: "3/3", own: 1, lines: [record("z")], floor: floor(p50Ms: 0.05, releaseP99: 120, load: 1.4), node: "node3")
        let alike = try RunMerge.merge([a, b, c], into: out())
        #expect(alike.warnings.isEmpty, "\(alike.warnings)")

        // Node 3 loaded: four times the loopback RTT, a late emulator, load 4 per CPU.
        let loaded = try shard(shard: "3/3", own: 1, lines: [record("z")], floor: floor(p50Ms: 0.2, releaseP99: 900, load: 8), node: "node3")
        let o = out()
        let report = try RunMerge.merge([a, b, loaded], into: o)
        #expect(report.recordsWritten == 3)
        let rtt = try #require(report.warnings.first { $0.contains("loopback RTT p50 of s") })
        #expect(rtt.contains("\(a) (node node1): 0.03 ms") && rtt.contains("\(loaded) (node node3): 0.2 ms"), "\(rtt)")
        let release = try #require(report.warnings.first { $0.contains("emulator release error p99") })
        #expect(release.contains("(node node2): 180 µs") && release.contains("(node node3): 900 µs"), "\(release)")
        let load = try #require(report.warnings.first { $0.contains("different loads") })
        #expect(load.contains("(node node1): 0.5;") && load.contains("(node node3): 4"), "\(load)")
        #expect(report.warnings.count == 3)

        // The merged manifest names each input's node; the merged folder has none of its own.
        let manifest = try #require(try RunDirectory(path: o).readManifest())
        #expect(manifest.mergedFrom?.map(\.node) == ["node1", "node2", "node3"])
        #expect(manifest.node == nil)

        // One busy machine: 4.3 and 5.0 per CPU are alike (spread 0.7, but a ratio of 1.16).
        let busy1 = try shard(shard: "1/3", own: 1, lines: [record("x")], floor: floor(p50Ms: 0.03, releaseP99: 90, load: 8.6), node: "node1")
        let busy2 = try shard(shard: "2/3", own: 1, lines: [record("y")], floor: floor(p50Ms: 0.03, releaseP99: 90, load: 10), node: "node2")
        #expect(try RunMerge.merge([busy1, busy2, c], into: out()).warnings.count == 1, "only node3's quieter 0.7 per CPU differs")
        #expect(try RunMerge.merge([busy1, busy2], into: out(), allowIncomplete: true).warnings.allSatisfy { !$0.contains("loads") })

        // Floors of older versions (no floor, no load) are not compared.
        let old = try shard(shard: "3/3", own: 1, lines: [record("z")])
        #expect(try RunMerge.merge([a, b, old], into: out()).warnings.isEmpty)
    }

    @Test func aShardNamesItsNodeAndTheCPUsItWasGiven() {
        #expect(Manifest.currentNode(environment: ["SLURMD_NODENAME": "node7"]) == "node7")
        // Outside Slurm (or an empty variable): the hostname.
        #expect(!Manifest.currentNode(environment: [:]).isEmpty)
        #expect(Manifest.currentNode(environment: ["SLURMD_NODENAME": ""]) == Manifest.currentNode(environment: [:]))
        #expect(MeasurementFloor.countCPUs(list: "0-3,6") == 5)
        #expect(MeasurementFloor.countCPUs(list: "1") == 1)
        #expect(MeasurementFloor.countCPUs(list: "3-1") == nil)
        #expect(MeasurementFloor.readCPUsAllowed() ?? 0 >= 1)
        #expect(MeasurementFloor.readLoadAverage()?.count == 3)
    }

    @Test func foldersOfAnotherMatrixSeedSchemaOrSplitAreRefused() throws {
        let a = try shard(shard: "1/2", lines: [record("x")])
        let cases: [(String, String)] = [
            (try shard(hash: "h2", shard: "2/2", lines: [record("y")]), "\"matrix_hash\" differs"),
            (
                try shard(shard: "2/2", schema: "peerbench.manifest/2", lines: [record("y")]),
                "schema \"peerbench.manifest/2\", expected \"peerbench.manifest/1\""
            ),
            (try shard(shard: "2/3", lines: [record("y")]), "different splits into shards"),
        ]
        for (other, message) in cases {
            let o = out()
            #expect(throws: InputError.self, "\(message)") { _ = try RunMerge.merge([a, other], into: o) }
            do { _ = try RunMerge.merge([a, other], into: o) } catch { #expect("\(error)".contains(message), "\(error)") }
            #expect(!FileManager.default.fileExists(atPath: o + "/records.jsonl"), "nothing written on refusal")
        }
        let seed = try shard(shard: "2/2", lines: [record("y")])
        var m = try #require(try RunDirectory(path: seed).readManifest())
        m.seed = 2
        try Fixtures.writeManifest(m, in: seed)
        #expect { _ = try RunMerge.merge([a, seed], into: out()) } throws: { "\($0)".contains("\"seed\" differs") }
    }

    /// Shard 2 of 3 interrupted after 1 of its 2 cells, shard 3 not given: refused,
    /// naming both; with allowIncomplete merged, and the manifest says what is missing.
    @Test func anIncompleteSetNamesTheMissingShardsAndUnfinishedFolders() throws {
        let s1 = try shard(shard: "1/3", total: 6, own: 2, lines: [record("a"), record("b")])
        let s2 = try shard(shard: "2/3", total: 6, own: 2, status: "interrupted", lines: [record("c")])
        let o = out()
        var message = ""
        do { _ = try RunMerge.merge([s1, s2], into: o) } catch { message = "\(error)" }
        #expect(message.contains("incomplete: 3 of the matrix's 6 cells have no record"), "\(message)")
        #expect(message.contains("no folder of shard 3/3 was given"))
        #expect(message.contains("\(s2) (shard 2/3, status interrupted) recorded 1 of its 2 cells"))
        #expect(message.contains("--allow-incomplete"))
        #expect(!FileManager.default.fileExists(atPath: o + "/records.jsonl"))

        let report = try RunMerge.merge([s1, s2], into: o, allowIncomplete: true)
        #expect(report.cellsMissing == 3)
        #expect(report.recordsWritten == 3)
        let incomplete = try RunDirectory(path: o).readManifest()?.incomplete
        #expect(incomplete?.cellsMissing == 3)
        #expect(incomplete?.shardsMissing == ["3/3"])
        #expect(incomplete?.unfinished.first?.path == s2)
        #expect(incomplete?.unfinished.first?.cellsRecorded == 1)
    }

    /// Lines appended to a finished run's journal that are not its records: another
    /// run's record, a foreign schema, a non-record object, an array, garbage. They are
    /// set aside, each named by file and line; the run's own records all merge.
    @Test func foreignLinesAreSetAsideAndNamed() throws {
        let journalLines = [
            record("x"), record("y", run: "other-run"), #"{"schema":"peerbench.record/9","hello":"world"}"#,
            record("z"), #"{"hello":"world"}"#, "[1,2]", #"{"schema":"peerbench.record/1","run_id":"r1"}"#, "garbage{",
        ]
        let a = try shard(total: 2, lines: journalLines)
        let o = out()
        let report = try RunMerge.merge([a], into: o)
        #expect(report.recordsWritten == 2)
        #expect(report.setAside == 6)
        let merged = try lines(o + "/records.jsonl")
        #expect(merged == [record("x"), record("z")])
        #expect(try lines(o + "/set-aside.jsonl").count == 6)
        let journal = a + "/records.jsonl"
        for (n, why) in [
            (2, "of run \"other-run\""), (3, "schema \"peerbench.record/9\""), (5, "schema missing"),
            (6, "not a JSON object"), (7, "not a complete record"), (8, "not a JSON object"),
        ] {
            #expect(report.warnings.contains { $0.hasPrefix("\(journal):\(n): ") && $0.contains(why) }, "line \(n): \(report.warnings)")
        }
        #expect(try RunDirectory(path: o).readManifest()?.setAside == 6)
    }

    @Test func samplesAreCarriedAndForeignSamplesSetAside() throws {
        func sample(_ id: String, run: String = "r1") -> String {
            #"{"schema":"peerbench.samples/1","run_id":"\#(run)","cell_id":"\#(id)","repetition":1,"rtt_ns":[1,2,3]}"#
        }
        let a = try shard(shard: "1/2", total: 2, own: 1, lines: [record("x")], samples: [sample("x"), sample("q", run: "elsewhere")])
        let b = try shard(shard: "2/2", total: 2, own: 1, lines: [record("y")], samples: [sample("y")])
        let o = out()
        let report = try RunMerge.merge([a, b], into: o)
        #expect(report.samplesWritten == 2)
        #expect(try lines(o + "/samples.jsonl") == [sample("x"), sample("y")])
        #expect(report.warnings.contains { $0.hasPrefix(a + "/samples.jsonl:2: ") })
        // No input with samples: no samples.jsonl.
        let c = try shard(total: 1, lines: [record("x")])
        let o2 = out()
        _ = try RunMerge.merge([c], into: o2)
        #expect(!FileManager.default.fileExists(atPath: o2 + "/samples.jsonl"))
    }
}
