import Testing

@testable import PeerBenchCore

/// `--shard K/N` deals blocks by estimated time (greedy longest-first).
@Suite struct ShardBalanceTests {
    func plan(_ text: String, shard: Shard? = nil) throws -> RunPlan {
        try RunPlan(
            matrix: try parse(text), options: RunOptions(matrixFile: "m.json", commandLine: [], shard: shard),
            linkModel: FakeLinkModel())
    }

    /// One long block among short ones: by count (block b to shard b mod 2) the long
    /// block's shard also gets half the short ones; longest-first gives it none.
    @Test func longestFirstBeatsDealingByCount() {
        let costs = [10_000] + Array(repeating: 1_000, count: 10)
        let bins = ShardBalance.longestFirst(costs, shards: 2)
        #expect(bins == [[0], Array(1...10)])
        let loads = bins.map { $0.reduce(0) { $0 + costs[$1] } }
        #expect(loads == [10_000, 10_000])
        // Dealt by count, shard 1 holds blocks 0, 2, 4, 6, 8, 10: 15 s against 5 s.
        let byCount = (0..<2).map { s in costs.indices.filter { $0 % 2 == s }.reduce(0) { $0 + costs[$1] } }
        #expect(byCount == [15_000, 5_000])
    }

    @Test func tiesGoToTheEarlierBlockAndTheLowerShard() {
        #expect(ShardBalance.longestFirst([5, 5, 5, 5], shards: 3) == [[0, 3], [1], [2]])
        #expect(ShardBalance.longestFirst([], shards: 2) == [[], []])
        #expect(ShardBalance.longestFirst([7], shards: 3) == [[0], [], []])
    }

    /// Large payloads (100 000 x 16 384 B) next to small ones, four transports: the
    /// balanced deal's longest shard is shorter than the deal by count, every cell is
    /// in exactly one shard, shards keep whole blocks, and the deal repeats exactly.
    @Test func balancedShardsOfARealPlan() throws {
        let transports =
            #"[{"plugin": "tcp", "label": "a"}, {"plugin": "tcp", "label": "b"}, {"plugin": "udp", "label": "c"}, {"plugin": "uwb", "label": "u"}]"#
        let text = matrixText(
            transports: transports, environments: #"["forest", "underground", "free-field"]"#,
            distances: "[1, 10]", counts: "[100, 100000]", sizes: "[128, 16384]")
        let whole = try plan(text)
        let n = 4
        let balance = whole.shardBalance(shards: n)
        let byCount = balance.countBasedShardSeconds.max()!
        let balanced = balance.shardSeconds.max()!
        #expect(balanced < byCount * 0.9, "balanced \(balanced) s vs by count \(byCount) s")
        // Greedy longest-first: no shard exceeds the lightest by more than the longest block.
        let longestBlock = Double(balance.blockMillis.max()!) / 1000
        #expect(balanced - balance.shardSeconds.min()! <= longestBlock + 1e-9)
        #expect(abs(balance.shardSeconds.reduce(0, +) - whole.estimatedSeconds()) < 0.01 * whole.estimatedSeconds())

        var seen: [CellKey: Int] = [:]
        for k in 1...n {
            let cells = try plan(text, shard: Shard(index: k, count: n)).cells
            #expect(cells.map(\.key) == (try plan(text, shard: Shard(index: k, count: n))).cells.map(\.key), "deterministic")
            #expect(cells.count == balance.shardCellCounts[k - 1])
            #expect(abs(whole.estimates(of: cells).reduce(0, +) - balance.shardSeconds[k - 1]) < 0.01)
            // Whole blocks, transports interleaved inside each (a b c [u]).
            for block in CellOrder.blocks(of: cells) {
                #expect(Array(block.map(\.transport.label).prefix(3)) == ["a", "b", "c"])
            }
            for c in cells { seen[c.key, default: 0] += 1 }
        }
        #expect(Set(seen.keys) == Set(whole.cells.map(\.key)))
        #expect(seen.values.allSatisfy { $0 == 1 })
    }
}
