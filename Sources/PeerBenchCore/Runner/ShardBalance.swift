/// A matrix's blocks dealt to N shards by estimated time: greedy longest-first (each
/// block, longest first, goes to the shard with the least time so far), which keeps
/// the longest shard within 4/3 of the best possible. Deterministic: block times are
/// rounded to milliseconds, ties go to the earlier block and the lower shard. Inside a
/// shard the blocks keep their canonical order, and a block's transports stay
/// interleaved.
public struct ShardBalance: Sendable {
    /// Canonical-order blocks of the whole matrix.
    public let blocks: [[Cell]]
    /// Estimated milliseconds of each block.
    public let blockMillis: [Int]
    /// For each shard (0-based), the indices of its blocks in canonical order.
    let assignment: [[Int]]

    /// `atOnce` (`transportsAtOnce`): a block's cells run together, so it takes its
    /// slowest cell's time rather than the sum.
    public init(_ canonicalCells: [Cell], shards: Int, atOnce: Bool = false, estimate: (Cell) -> Double) {
        blocks = CellOrder.blocks(of: canonicalCells)
        blockMillis = blocks.map { b in
            let millis = b.map { Int((estimate($0) * 1000).rounded()) }
            return atOnce ? millis.max() ?? 0 : millis.reduce(0, +)
        }
        assignment = ShardBalance.longestFirst(blockMillis, shards: max(1, shards))
    }

    /// The greedy longest-first deal of `costs` to `shards` bins; each bin sorted.
    static func longestFirst(_ costs: [Int], shards: Int) -> [[Int]] {
        let order = costs.indices.sorted { (costs[$0], -$0) > (costs[$1], -$1) }
        var load = [Int](repeating: 0, count: shards)
        var bins = [[Int]](repeating: [], count: shards)
        for b in order {
            // The least-loaded shard; the lowest number on a tie.
            var best = 0
            for s in 1..<shards where load[s] < load[best] { best = s }
            load[best] += costs[b]
            bins[best].append(b)
        }
        return bins.map { $0.sorted() }
    }

    /// The cells of shard `k` (1-based), in canonical order.
    public func cells(ofShard k: Int) -> [Cell] { assignment[k - 1].flatMap { blocks[$0] } }

    /// Estimated seconds of each shard (0-based).
    public var shardSeconds: [Double] { assignment.map { Double($0.reduce(0) { $0 + blockMillis[$1] }) / 1000 } }

    /// Cells of each shard (0-based).
    public var shardCellCounts: [Int] { assignment.map { $0.reduce(0) { $0 + blocks[$1].count } } }

    /// Estimated seconds of each shard under the old deal by count (block b to shard
    /// b mod N), for comparing makespans.
    public var countBasedShardSeconds: [Double] {
        var s = [Double](repeating: 0, count: assignment.count)
        for (b, ms) in blockMillis.enumerated() { s[b % assignment.count] += Double(ms) / 1000 }
        return s
    }
}
