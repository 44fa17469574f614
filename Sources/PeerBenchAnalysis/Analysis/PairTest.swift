import Foundation

/// Sample `a` against sample `b` on one metric: the test, the effect sizes and the
/// verdict rule shared by head-to-head pairs and baselines (docs/COMPARE.md).
struct PairTest: Sendable {
    var n: Int
    var m: Int
    var pValue: Double?
    var method: MannWhitneyU.Method?
    var cliffsDelta: Double?
    var shift: Double?
    var shiftLow: Double?
    var shiftHigh: Double?
    /// The test cannot reach alpha with these sample sizes, whatever the data.
    var insufficient: Bool

    /// The smallest |delta| that counts as a difference: Romano et al.'s "medium" effect.
    static let minimumEffect = 0.33

    init(_ a: [Double], _ b: [Double], alpha: Double) { self.init(sorted: a.sorted(), b.sorted(), alpha: alpha) }

    /// The same for samples in ascending order: compare sorts each label's values once
    /// for every pair they are in.
    init(sorted a: [Double], _ b: [Double], alpha: Double) {
        n = a.count
        m = b.count
        insufficient = PairTest.smallestP(n: n, m: m) >= alpha
        guard let u = MannWhitneyU(sorted: a, b) else { return }
        pValue = u.pValue
        method = u.method
        cliffsDelta = EffectSize.cliffsDelta(sorted: a, b)
        if let hl = EffectSize.hodgesLehmann(sorted: a, b) {
            shift = hl.shift
            shiftLow = hl.low
            shiftHigh = hl.high
        }
    }

    /// The smallest two-sided p-value the test can give for sizes n and m: 2 / C(n+m, n),
    /// the exact test's value when every a lies beyond every b. 1 when either is empty.
    static func smallestP(n: Int, m: Int) -> Double {
        guard n > 0, m > 0 else { return 1 }
        // log C(n+m, n) by a running sum: no overflow for any size.
        var logChoose = 0.0
        for i in 1...min(n, m) { logChoose += log(Double(max(n, m) + i)) - log(Double(i)) }
        return min(1, 2 * exp(-logChoose))
    }

    /// The fewest ok repetitions on each side (n = m) for which the test can reach alpha.
    static func repetitionsNeeded(alpha: Double) -> Int {
        var n = 1
        while smallestP(n: n, m: n) >= alpha, n < 1000 { n += 1 }
        return n
    }

    /// Whether `a` differs from `b` in the direction that counts: +1 a is better, -1 worse,
    /// 0 no difference, nil insufficient.
    func direction(pAdjusted: Double?, alpha: Double, higherIsBetter: Bool) -> Int? {
        guard !insufficient, let p = pAdjusted, let d = cliffsDelta else { return nil }
        guard p < alpha, abs(d) >= PairTest.minimumEffect else { return 0 }
        return (d > 0) == higherIsBetter ? 1 : -1
    }
}

extension PairTest {
    /// `direction` with the measurement floor applied: a difference whose shift is not
    /// shown to exceed `floor` (ms; nil = no floor) is none (0), with the reason
    /// `below_floor`, whatever the p-value (docs/COMPARE.md).
    func direction(pAdjusted: Double?, alpha: Double, higherIsBetter: Bool, floor: Double?) -> (direction: Int?, reason: String?) {
        let d = direction(pAdjusted: pAdjusted, alpha: alpha, higherIsBetter: higherIsBetter)
        guard let floor, let d, d != 0, !ComparisonFloor.exceeds(shift: shift, low: shiftLow, high: shiftHigh, floor: floor) else {
            return (d, nil)
        }
        return (0, ComparisonFloor.belowFloor)
    }

    /// Holm-adjusted p-values indexed like `tests`. The family is the tests that can
    /// reach alpha at all (not insufficient, with a p-value); the others get none (nil).
    static func holmAdjusted(_ tests: [PairTest]) -> [Double?] {
        let family = tests.indices.filter { !tests[$0].insufficient && tests[$0].pValue != nil }
        let adjusted = Holm.adjust(family.map { tests[$0].pValue! })
        // An array, not a dictionary: compare makes one for every scenario and metric.
        var byIndex = [Double?](repeating: nil, count: tests.count)
        for (k, i) in family.enumerated() { byIndex[i] = adjusted[k] }
        return byIndex
    }
}
