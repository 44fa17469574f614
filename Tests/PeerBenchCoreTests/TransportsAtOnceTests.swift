import Foundation
import Testing

@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

/// The matrix key `transportsAtOnce`: what the loader refuses (naming the JSON path),
/// the blocks that run together, resume of a half-recorded block and the estimate.
/// The run itself over the emulated link: PeerBenchCLITests/SharedLinkRunTests.
@Suite struct TransportsAtOnceTests {
    static let two = #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"}]"#

    @Test func absentOrFalseIsTheSequentialDefaultAndTrueIsRead() throws {
        #expect(try parse(matrixText(transports: Self.two)).transportsAtOnce == false)
        #expect(try parse(matrixText(transports: Self.two, extra: #""transportsAtOnce": false, "#)).transportsAtOnce == false)
        #expect(try parse(matrixText(transports: Self.two, extra: #""transportsAtOnce": true, "#)).transportsAtOnce == true)
    }

    @Test func matricesWhoseTransportsCannotShareAreRefusedNamingThePath() {
        let one = problems(matrixText(extra: #""transportsAtOnce": true, "#))
        #expect(one.map(\.path) == ["$.transportsAtOnce"])
        #expect(one.first?.message == "needs at least two transports to run at once over the shared link; the matrix has 1")
        #expect(problems(matrixText(transports: Self.two, extra: #""transportsAtOnce": "yes", "#)).map(\.path) == ["$.transportsAtOnce"])
        let sequential = problems(matrixText(transports: Self.two, extra: #""order": "sequential", "transportsAtOnce": true, "#))
        #expect(sequential.map(\.path) == ["$.transportsAtOnce"])
        let modes = problems(
            matrixText(
                transports: #"[{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp", "wifi": {"performanceMode": "realtime"}}]"#,
                extra: #""transportsAtOnce": true, "#))
        #expect(modes.map(\.path) == ["$.transportsAtOnce"])
        #expect(modes.first?.message.contains("tcp: bulk, udp: realtime") == true)
    }

    @Test func orderSequentialOnTheCommandLineIsRefused() throws {
        let m = try parse(matrixText(transports: Self.two, extra: #""transportsAtOnce": true, "#))
        #expect(throws: InputError.self) {
            try RunPlan(matrix: m, options: RunOptions(matrixFile: "m.json", commandLine: [], order: .sequential), linkModel: FakeLinkModel())
        }
    }

    @Test func blocksAreTheGroupsAndAHalfRecordedBlockRunsAgainWhole() throws {
        let m = try parse(matrixText(transports: Self.two, counts: "[10, 20]", extra: #""repetitions": 2, "transportsAtOnce": true, "#))
        let plan = try RunPlan(matrix: m, options: RunOptions(matrixFile: "m.json", commandLine: []), linkModel: FakeLinkModel())
        #expect(plan.cells.count == 8)
        #expect(Runner.blockRanges(of: plan.cells) == [0..<2, 2..<4, 4..<6, 6..<8])
        // Block 2 lost its udp record (cell 3), block 3 was not run at all.
        let pending = [plan.cells[3], plan.cells[4], plan.cells[5]]
        #expect(RunSetup.wholeBlocks(of: pending, in: plan.cells).map(\.key) == plan.cells[2..<6].map(\.key))
        #expect(RunSetup.wholeBlocks(of: [], in: plan.cells).isEmpty)
    }

    @Test func aBlockIsEstimatedAtItsSlowestTransportPlusTheOthersBytesNotTheSum() throws {
        let text = matrixText(transports: Self.two, counts: "[10, 20]")
        let sequential = try RunPlan(matrix: try parse(text), options: RunOptions(matrixFile: "m.json", commandLine: []), linkModel: FakeLinkModel())
        let atOnce = try RunPlan(
            matrix: try parse(matrixText(transports: Self.two, counts: "[10, 20]", extra: #""transportsAtOnce": true, "#)),
            options: RunOptions(matrixFile: "m.json", commandLine: []), linkModel: FakeLinkModel())
        let each = sequential.estimates(of: sequential.cells)
        let shared = atOnce.estimates(of: atOnce.cells)
        #expect(shared.count == each.count)
        // The slowest transport's time, plus the others' bulk phases: their bytes share the air.
        for block in Runner.blockRanges(of: atOnce.cells) {
            let slowest = block.max { each[$0] < each[$1] }!
            let bulk = block.filter { $0 != slowest }.map { atOnce.costModel.bulkSeconds(atOnce.cells[$0], link: atOnce.link(for: atOnce.cells[$0])) }
            #expect(bulk.allSatisfy { $0 > 0 })
            #expect(abs(shared[block].reduce(0, +) - (each[slowest] + bulk.reduce(0, +))) < 1e-9)
            #expect(shared[block].reduce(0, +) > each[block].max()!)
        }
        #expect(shared.reduce(0, +) < each.reduce(0, +))
        // Shards balance blocks by the slowest transport's time alone (a relative weight).
        let balance = atOnce.shardBalance(shards: 2)
        for (b, block) in balance.blocks.enumerated() {
            #expect(balance.blockMillis[b] == block.map { Int((atOnce.costModel.seconds($0, link: atOnce.link(for: $0)) * 1000).rounded()) }.max())
        }
    }

    @Test func theRecordKeyIsNullUnlessShared() throws {
        let m = try parse(matrixText(transports: Self.two))
        var r = Record(
            runID: "r", cell: m.cells()[0], link: ResolvedLink(environment: "forest", distanceMeters: 1, distanceLabel: "1"),
            linkMode: .none, counters: nil, status: .ok, error: nil, startedAt: Date(), totalSeconds: 1, measurement: nil)
        #expect(r.json["shared_link_with"] == .null)
        r.sharedLinkWith = ["udp"]
        #expect(r.json["shared_link_with"] == .array([.string("udp")]))
        #expect(try Record(json: r.json).sharedLinkWith == ["udp"])
        var old = r.json.objectValue!
        old["shared_link_with"] = nil
        #expect(try Record(json: .object(old)).sharedLinkWith == nil, "records written before the key read as not shared")
        #expect(RecordsCSV.columns.contains("shared_link_with"))
    }
}
