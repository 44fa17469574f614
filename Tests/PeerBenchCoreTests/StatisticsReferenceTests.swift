import Foundation
import PeerBenchAnalysis
import PeerBenchCore
import Testing

/// `compare`'s statistics against an independent reference: scipy and plain Python
/// (Tests/Reference/compare_stats_reference.py) on fixed vectors with ties, small and large n.
/// Tolerance: 1e-9 relative (or 1e-15 absolute, for tiny p-values) on every figure: both
/// sides compute the same definitions in double precision.
@Suite struct StatisticsReferenceTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Reference/compare_stats_reference.py").path

    /// The reference's JSON, or nil where python3 with scipy is not installed (scripts/setup.sh installs it).
    static let referenceOutput: Data? = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? data : nil
    }()

    static var reference: [String: Any]? {
        referenceOutput.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    static func close(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) <= max(1e-15, 1e-9 * abs(b))
    }

    static func pair(_ v: Any?) -> (Double, Double)? {
        guard let a = v as? [Double], a.count == 2 else { return nil }
        return (a[0], a[1])
    }

    @Test(.enabled(if: referenceOutput != nil, "python3 with scipy is not installed: run scripts/setup.sh to check the statistics against scipy"))
    func mannWhitneyEffectSizesAndIntervalsMatchScipy() throws {
        let cases = try #require(Self.reference?["cases"] as? [[String: Any]])
        #expect(cases.count >= 10)
        for c in cases {
            let name = c["name"] as! String
            let x = c["x"] as! [Double], y = c["y"] as! [Double]
            let u = try #require(MannWhitneyU(x, y))
            #expect(u.method.rawValue == c["method"] as? String, "\(name): method")
            #expect(Self.close(u.u1, c["u1"] as? Double), "\(name): U \(u.u1) vs \(c["u1"]!)")
            #expect(Self.close(u.pValue, c["p_value"] as? Double), "\(name): p \(u.pValue) vs \(c["p_value"]!)")
            #expect(Self.close(EffectSize.cliffsDelta(x, y), c["cliffs_delta"] as? Double), "\(name): Cliff's delta")
            let hl = try #require(EffectSize.hodgesLehmann(x, y))
            #expect(Self.close(hl.shift, c["shift"] as? Double), "\(name): shift \(hl.shift) vs \(c["shift"]!)")
            let ci = Self.pair(c["shift_ci"])
            #expect(
                Self.close(hl.low, ci?.0) && Self.close(hl.high, ci?.1),
                "\(name): shift interval \(String(describing: hl.low)), \(String(describing: hl.high)) vs \(String(describing: ci))")
            #expect(Self.close(OrderStatistics.median(x), c["median_x"] as? Double), "\(name): median")
            let mci = OrderStatistics.medianInterval(x), ref = Self.pair(c["median_ci_x"])
            #expect(
                Self.close(mci?.low, ref?.0) && Self.close(mci?.high, ref?.1),
                "\(name): median interval \(String(describing: mci)) vs \(String(describing: ref))")
        }
    }

    @Test(.enabled(if: referenceOutput != nil, "python3 with scipy is not installed: run scripts/setup.sh to check the statistics against scipy"))
    func holmAndMedianRanksMatchTheReference() throws {
        let holm = try #require(Self.reference?["holm"] as? [String: Any])
        let adjusted = Holm.adjust(holm["p"] as! [Double])
        #expect(zip(adjusted, holm["adjusted"] as! [Double]).allSatisfy { Self.close($0, $1) }, "\(adjusted)")
        for row in try #require(Self.reference?["median_ranks"] as? [[String: Any]]) {
            let n = row["n"] as! Int
            #expect(OrderStatistics.medianIntervalRank(n: n) == row["k"] as? Int, "n = \(n)")
        }
    }
}

/// Properties of the statistics that need no reference.
@Suite struct StatisticsPropertyTests {
    @Test func exactTestsSmallestPIsTwoOverTheBinomialCoefficient() throws {
        // n = m = 3: 2 / C(6, 3) = 0.1, which can never reach 0.05; n = m = 4: 2 / 70.
        #expect(try #require(MannWhitneyU([1, 2, 3], [4, 5, 6])).pValue == 0.1)
        #expect(abs(try #require(MannWhitneyU([1, 2, 3, 4], [5, 6, 7, 8])).pValue - 2.0 / 70) < 1e-15)
        #expect(ComparisonDocument.repetitionsNeeded(alpha: 0.05) == 4)
        #expect(ComparisonDocument.repetitionsNeeded(alpha: 0.01) == 5)
    }

    @Test func testAndEffectSizesAreAntisymmetric() throws {
        let x = [3.2, 5.1, 4.4, 6.0, 2.9, 5.5], y = [4.1, 6.3, 7.0, 5.9, 6.6]
        let xy = try #require(MannWhitneyU(x, y)), yx = try #require(MannWhitneyU(y, x))
        #expect(xy.pValue == yx.pValue)
        #expect(xy.u1 + yx.u1 == Double(x.count * y.count))
        #expect(EffectSize.cliffsDelta(x, y) == -EffectSize.cliffsDelta(y, x)!)
        #expect(EffectSize.hodgesLehmann(x, y)!.shift == -EffectSize.hodgesLehmann(y, x)!.shift)
    }

    @Test func holmKeepsOrderAndCapsAtOne() {
        #expect(Holm.adjust([0.5, 0.4]) == [0.8, 0.8])
        #expect(Holm.adjust([]) == [])
        #expect(Holm.adjust([0.9, 0.01, 0.6]).map { ($0 * 1e9).rounded() / 1e9 } == [1, 0.03, 1])
    }
}
