/// Holm's step-down adjustment of a family of p-values (controls the family-wise error rate).
public enum Holm {
    /// Adjusted p-values in the order given: the i-th smallest p becomes
    /// max over j <= i of min(1, (k - j + 1) p(j)), k the family size.
    public static func adjust(_ p: [Double]) -> [Double] {
        let k = p.count
        let order = p.indices.sorted { p[$0] < p[$1] }
        var adjusted = [Double](repeating: 0, count: k)
        var running = 0.0
        for (rank, index) in order.enumerated() {
            running = max(running, min(1, Double(k - rank) * p[index]))
            adjusted[index] = running
        }
        return adjusted
    }
}
