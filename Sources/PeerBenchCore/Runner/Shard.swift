import PeerBenchJSON
import PeerBenchPlugin

/// `--shard K/N`: one of N disjoint shares of a run's cells, for running a matrix on
/// N machines at once (a Slurm job array, a Kubernetes indexed Job).
///
/// Cells are dealt out by block (repetition x environment x distance x payload, see
/// `CellOrder`), balanced by estimated time: see `ShardBalance`. Whole blocks stay
/// together so every transport of a comparison runs on the same machine, and the
/// deal depends only on the matrix, the run options and the cost model, never on the
/// machine (a calibration from a past run does not move cells between shards).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based: 1...count.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N` (1 <= K <= N), naming the argument in the error.
    public init(parsing text: String, source: String = "--shard") throws(InputError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw InputError(source: source, "expected K/N such as 1/4 (shard K of N, counting from 1), got \"\(text)\"")
        }
        guard n >= 1, k >= 1, k <= n else {
            throw InputError(
                source: source, "shard \(k) of \(n) does not exist; K counts from 1 to N (e.g. 1/\(max(n, 2)) ... \(max(n, 2))/\(max(n, 2)))")
        }
        self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// This shard's cells, in canonical order. `estimate`: seconds of one cell.
    /// `atOnce` (`transportsAtOnce`): a block takes its slowest cell's time, not the sum.
    public func select(_ canonicalCells: [Cell], atOnce: Bool = false, estimate: (Cell) -> Double) -> [Cell] {
        guard count > 1 else { return canonicalCells }
        return ShardBalance(canonicalCells, shards: count, atOnce: atOnce, estimate: estimate).cells(ofShard: index)
    }
}

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
