/// Warnings the page shows above the figures, beyond those found while reading.
enum ReportWarnings {
    /// The smallest equal group size at which a two-sided exact Mann-Whitney test can
    /// reach `alpha` at all: its smallest p-value is 2 / C(2n, n) (0.1 at n = 3, 0.029 at n = 4).
    static func repetitionsNeeded(alpha: Double) -> Int {
        var n = 1
        while 2 / binomial(2 * n, n) >= alpha, n < 50 { n += 1 }
        return n
    }

    static func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }

    /// One line when some scenario x transport has too few usable repetitions for a verdict.
    static func repetitions(_ doc: ComparisonDocument) -> [String] {
        let needed = repetitionsNeeded(alpha: doc.alpha)
        var groups = 0, short = 0, smallest = Int.max
        for s in doc.scenarios {
            for t in s.transports {
                let n = t.metrics.values.map(\.n).max() ?? 0
                groups += 1
                if n < needed { short += 1; smallest = min(smallest, n) }
            }
        }
        guard short > 0 else { return [] }
        return ["too few repetitions: \(short) of \(groups) scenario x transport groups have fewer than \(needed) usable repetitions (fewest: \(smallest)); a two-sided Mann-Whitney test cannot reach alpha \(doc.alpha) with fewer than \(needed) per side, so their verdicts are insufficient (rerun with --repetitions \(needed) or more)"]
    }
}
