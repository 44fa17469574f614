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
