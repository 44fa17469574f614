import PeerBenchPlugin

/// The order statistics of every difference `x_i - y_j` of two samples, without forming
/// all `n * m` of them: the Hodges-Lehmann shift reads four (docs/COMPARE.md). Two
/// samples of 260 values have 67 600 differences; with both samples sorted, row `i`'s
/// differences ascend along `y` descending, so how many differences lie below a value is
/// counted in one O(n + m) walk, and a rank is found by narrowing each row's window of
/// candidates around random pivots drawn from the windows: O((n + m) log(nm)) expected
/// (Johnson and Mizoguchi's selection in X + Y, with the pivot drawn at random). Small
/// samples simply select among their differences.
struct PairwiseDifferences {
    /// x, ascending when there are more than `directLimit` differences.
    private let x: [Double]
    /// y, then descending: `x[i] - z[j]` ascends with `j` (floating-point subtraction is monotone).
    private let z: [Double]

    /// Up to this many candidates the rest are collected and selected directly.
    static let directLimit = 512

    init(_ x: [Double], _ y: [Double]) {
        // Small samples select among all their differences: no order needed.
        let direct = x.count * y.count <= Self.directLimit
        self.x = direct ? x : x.sorted()
        self.z = direct ? y : y.sorted(by: >)
    }

    var count: Int { x.count * z.count }

    /// The differences at the 0-based sorted positions `ranks` (ascending), exactly as
    /// `differences.sorted()[r]` gives them.
    func values(ranks: [Int]) -> [Double] {
        guard count > Self.directLimit else {
            // A few hundred differences: on the stack, not the heap.
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { d in
                var k = 0
                for a in x { for b in z { d.initializeElement(at: k, to: a - b); k += 1 } }
                return OrderStatistics.select(d, ranks: ranks)
            }
        }
        return ranks.map(value(rank:))
    }

    /// The `k`-th smallest difference (0-based), exactly as `differences.sorted()[k]`.
    func value(rank k: Int) -> Double {
        precondition(k >= 0 && k < count, "rank \(k) of \(count) differences")
        guard count > Self.directLimit else { return values(ranks: [k])[0] }
        let n = x.count, m = z.count
        // Row i's candidates are the columns lo[i]..<hi[i]; everything left of lo[i] is
        // below the rank's value, everything from hi[i] on above it.
        var lo = [Int](repeating: 0, count: n), hi = [Int](repeating: m, count: n)
        var below = 0  // differences known to be below the k-th: sum of lo
        // The pivots are random; the value found does not depend on them.
        var random = SeededRandom(seed: UInt64(k), stream: UInt64(count))
        var less = [Int](repeating: 0, count: n), atMost = [Int](repeating: 0, count: n)
        while true {
            var remaining = 0
            for i in 0..<n { remaining += hi[i] - lo[i] }
            if remaining <= Self.directLimit { return direct(k - below, lo: lo, hi: hi, remaining: remaining) }
            // A candidate drawn uniformly: the r-th in row order.
            var r = Int(random.next() % UInt64(remaining)), row = 0
            while r >= hi[row] - lo[row] { r -= hi[row] - lo[row]; row += 1 }
            let pivot = x[row] - z[lo[row] + r]
            let (lt, le) = counts(pivot, lo: lo, hi: hi, less: &less, atMost: &atMost)
            if k < lt {
                hi = less
            } else if k >= le {
                lo = atMost
                below = le
            } else {
                return pivot
            }
        }
    }

    /// How many differences are below `pivot` and at most `pivot`, with each row's split
    /// points (within its window, which holds the pivot's neighbours) in `less`/`atMost`.
    private func counts(_ pivot: Double, lo: [Int], hi: [Int], less: inout [Int], atMost: inout [Int]) -> (Int, Int) {
        let n = x.count
        var lt = 0, le = 0
        // As x grows the split points move left: each pointer only ever decreases.
        var j = hi[0], k = hi[0]
        for i in 0..<n {
            j = min(j, hi[i]); k = min(k, hi[i])
            j = max(j, lo[i]); k = max(k, lo[i])
            while j > lo[i], x[i] - z[j - 1] >= pivot { j -= 1 }
            while k > lo[i], x[i] - z[k - 1] > pivot { k -= 1 }
            // The windows hold every undecided column: left of lo is below, from hi on above.
            less[i] = j
            atMost[i] = k
            lt += j
            le += k
        }
        return (lt, le)
    }

    /// The `k`-th smallest of the differences in the windows.
    private func direct(_ k: Int, lo: [Int], hi: [Int], remaining: Int) -> Double {
        var d: [Double] = []
        d.reserveCapacity(remaining)
        for i in 0..<x.count where lo[i] < hi[i] {
            for j in lo[i]..<hi[i] { d.append(x[i] - z[j]) }
        }
        return OrderStatistics.select(&d, ranks: [k])[0]
    }
}
