import PeerBenchPlugin
import PeerBenchSystem

/// The order statistics of every difference `x_i - y_j` of two samples, without forming
/// all `n * m` of them: the Hodges-Lehmann shift reads four (docs/COMPARE.md). Two
/// samples of 260 values have 67 600 differences; with both samples sorted, row `i`'s
/// differences ascend along `y` descending, so how many differences lie below a value is
/// counted in one O(n + m) walk, and a rank is found by narrowing each row's window of
/// candidates around random pivots drawn from the windows: O((n + m) log(nm)) expected
/// (Johnson and Mizoguchi's selection in X + Y, with the pivot drawn at random). Small
/// samples (compare's usual ten repetitions: 100 differences) sort their differences by
/// merging the sorted runs the sorted samples give, without a data-dependent branch.
struct PairwiseDifferences {
    /// x, ascending.
    private let x: [Double]
    /// y, ascending.
    private let y: [Double]
    /// y descending, for the window search (more than `directLimit` differences only):
    /// `x[i] - z[j]` ascends with `j` (floating-point subtraction is monotone).
    private let z: [Double]

    /// Up to this many differences they are sorted whole; above, ranks are selected, and
    /// the window search selects directly once this few candidates remain.
    static let directLimit = 512

    init(_ x: [Double], _ y: [Double]) { self.init(sorted: x.sorted(), y.sorted()) }

    /// Samples already in ascending order (compare sorts each label's sample once).
    init(sorted x: [Double], _ y: [Double]) {
        self.x = x
        self.y = y
        self.z = x.count * y.count > Self.directLimit ? y.reversed() : []
    }

    var count: Int { x.count * y.count }

    /// The differences at the 0-based sorted positions `ranks` (ascending), exactly as
    /// `differences.sorted()[r]` gives them.
    func values(ranks: [Int]) -> [Double] {
        guard count > Self.directLimit else {
            // A few hundred differences and a second buffer to merge into: on the stack,
            // with one slot either side that the merge may read (never use) at run ends.
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * count + 2) { buffer in
                buffer.initialize(repeating: 0)
                let (runs, split) = sortedRuns(buffer.baseAddress! + 1)
                return ranks.map { Self.select($0, runs, split: split, count: count) }
            }
        }
        return ranks.map(value(rank:))
    }

    /// The differences at four 0-based sorted positions (the Hodges-Lehmann shift's
    /// interval ends and middle), as `values(ranks:)` gives them, without an array for
    /// the ranks or the values: compare asks this of every pair and metric.
    func values(_ r0: Int, _ r1: Int, _ r2: Int, _ r3: Int) -> (Double, Double, Double, Double) {
        guard count > Self.directLimit else {
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * count + 2) { buffer in
                buffer.initialize(repeating: 0)
                let (runs, split) = sortedRuns(buffer.baseAddress! + 1)
                return (
                    Self.select(r0, runs, split: split, count: count), Self.select(r1, runs, split: split, count: count),
                    Self.select(r2, runs, split: split, count: count), Self.select(r3, runs, split: split, count: count)
                )
            }
        }
        return (value(rank: r0), value(rank: r1), value(rank: r2), value(rank: r3))
    }

    /// Every difference in two ascending runs, `[0, split)` and `[split, count)`, in
    /// `buffer` (room for `2 * count`, readable one slot before and after): the longer
    /// sample gives runs that are already sorted (`x_i - y_j` ascends with `x_i` and
    /// descends with `y_j`), one per value of the shorter, merged pairwise until two are
    /// left, from which `select` reads a rank by bisection. 100 differences of two
    /// 10-value samples take three merges of every value, each a comparison and
    /// conditional moves: a selection among them mispredicts about every other of its
    /// ~500 comparisons.
    private func sortedRuns(_ buffer: UnsafeMutablePointer<Double>) -> (UnsafePointer<Double>, split: Int) {
        let n = x.count, m = y.count, total = count
        var from = buffer, to = buffer + total
        let run: Int
        if n >= m {
            run = n
            for j in 0..<m { for i in 0..<n { from[j * n + i] = x[i] - y[j] } }
        } else {
            run = m
            for i in 0..<n { for t in 0..<m { from[i * m + t] = x[i] - y[m - 1 - t] } }
        }
        // The merge reads a used-up run as an infinity: with an infinite (or NaN)
        // difference, which only samples near the limits of a double give, sort instead.
        var zero = 0.0  // d - d is 0 for every finite d, NaN for the others
        for k in 0..<total { zero += from[k] - from[k] }
        if zero != 0 {
            var sorted = UnsafeMutableBufferPointer(start: from, count: total)
            sorted.sort()
            return (UnsafePointer(from), total)
        }
        var width = run
        while 2 * width < total {
            var start = 0
            while start < total {
                let mid = min(start + width, total), end = min(start + 2 * width, total)
                if mid == end {
                    (to + start).update(from: from + start, count: end - start)  // a run alone
                } else {
                    Self.merge(from, start, mid, end, into: to)
                }
                start = end
            }
            swap(&from, &to)
            width *= 2
        }
        return (UnsafePointer(from), min(width, total))
    }

    /// The `r`-th smallest (0-based) of the ascending runs `a[0..<split]` and
    /// `a[split..<count]`: the `r + 1` smallest are the first `i` of one and `r + 1 - i`
    /// of the other, `i` found by bisection, and the rank's value is the larger of the
    /// two last taken.
    private static func select(_ r: Int, _ a: UnsafePointer<Double>, split: Int, count: Int) -> Double {
        let b = a + split, p = split, q = count - split
        var lo = max(0, r + 1 - q), hi = min(r + 1, p)
        // Take more of the first run while the second's last taken exceeds its next.
        while lo < hi {
            let i = (lo + hi) / 2, j = r + 1 - i
            if j > 0, i < p, b[j - 1] > a[i] { lo = i + 1 } else { hi = i }
        }
        let i = lo, j = r + 1 - lo
        if i == 0 { return b[j - 1] }
        if j == 0 { return a[i - 1] }
        return a[i - 1] < b[j - 1] ? b[j - 1] : a[i - 1]
    }

    /// Merges the ascending runs `src[start..<mid]` and `src[mid..<end]` into
    /// `dst[start..<end]`, from both ends at once: the smaller half from the front, the
    /// rest from the back, two independent chains the processor overlaps (each step's
    /// loads wait on the previous comparison). A run that is used up reads as +infinity
    /// at the front, -infinity at the back, and which side a step takes is a conditional
    /// move, not a branch, so unpredictable data costs nothing extra: the values must be
    /// finite. Among equal values the front takes the left run's first and the back the
    /// right run's last, so the two ends take complementary values. Reads
    /// `src[start - 1]` and `src[end]` without using them.
    @inline(__always)
    private static func merge(
        _ src: UnsafeMutablePointer<Double>, _ start: Int, _ mid: Int, _ end: Int,
        into dst: UnsafeMutablePointer<Double>
    ) {
        let half = (end - start) / 2
        var i = start, j = mid, front = start  // the front's cursors
        var p = mid - 1, q = end - 1, back = end - 1  // the back's
        for _ in 0..<half {
            let u0 = src[i], v0 = src[j]
            let u = i < mid ? u0 : .infinity, v = j < end ? v0 : .infinity
            let right = v < u
            dst[front] = right ? v : u
            i &+= right ? 0 : 1
            j &+= right ? 1 : 0
            front &+= 1
            let a0 = src[p], b0 = src[q]
            let a = p >= start ? a0 : -.infinity, b = q >= mid ? b0 : -.infinity
            let left = b < a
            dst[back] = left ? a : b
            p &-= left ? 1 : 0
            q &-= left ? 0 : 1
            back &-= 1
        }
        if front == back {  // an odd count: the last value, taken from the back
            let a = p >= start ? src[p] : -.infinity, b = q >= mid ? src[q] : -.infinity
            dst[back] = b < a ? a : b
        }
    }

    /// The `k`-th smallest difference (0-based), exactly as `differences.sorted()[k]`.
    func value(rank k: Int) -> Double {
        precondition(k >= 0 && k < count, "rank \(k) of \(count) differences")
        guard count > Self.directLimit else { return values(ranks: [k])[0] }
        let n = x.count, m = y.count
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
            while r >= hi[row] - lo[row] {
                r -= hi[row] - lo[row]
                row += 1
            }
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
            j = min(j, hi[i])
            k = min(k, hi[i])
            j = max(j, lo[i])
            k = max(k, lo[i])
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
