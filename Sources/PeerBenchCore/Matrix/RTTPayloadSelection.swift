import PeerBenchJSON
import PeerBenchPlugin

/// Which of a link's cells run the idle RTT probe phase (the matrix's optional
/// `"rttPayloads": {"counts": [...], "sizes": [...]}`).
///
/// The field study measured RTT in a few separate tests per transport x place x
/// distance, not in every transfer test; with this selection a matrix probes only in
/// the cells whose payload count is in `counts` and whose size is in `sizes` (a list
/// left out allows every value), and the other cells go straight to the bulk phase.
/// The choice depends on the cell's payload alone, never on the run order, a shard or
/// a resume, so every run of the matrix probes in the same cells. Cells of transports
/// that take no payload (one per environment x distance) always probe.
public struct RTTPayloadSelection: Sendable, Equatable {
    /// Payload counts whose cells probe; nil = any count.
    public var counts: Set<Int>?
    /// Payload sizes whose cells probe; nil = any size.
    public var sizes: Set<Int>?

    public init(counts: Set<Int>? = nil, sizes: Set<Int>? = nil) {
        self.counts = counts
        self.sizes = sizes
    }

    /// Whether a cell with `payload` runs the RTT probes.
    public func probes(_ payload: Payload?) -> Bool {
        guard let payload else { return true }
        return (counts?.contains(payload.count) ?? true) && (sizes?.contains(payload.size) ?? true)
    }

    /// The probes a cell with `payload` sends: `rttProbes`, or 0 where `selection`
    /// leaves it out (nil = every cell probes). The one rule the plan, the cost model
    /// and the executor share.
    public static func probes(_ rttProbes: Int, payload: Payload?, selection: RTTPayloadSelection?) -> Int {
        (selection?.probes(payload) ?? true) ? rttProbes : 0
    }
}

extension Matrix {
    /// The RTT probes `cell` sends: `rttProbes`, or 0 where `rttPayloads` leaves the
    /// cell out (its record then has `rtt_ms` and `rtt_method` null).
    public func rttProbes(for cell: Cell) -> Int {
        rttProbes(for: cell.payload)
    }

    /// The RTT probes a cell with `payload` sends (see `rttProbes(for:)`).
    public func rttProbes(for payload: Payload?) -> Int {
        RTTPayloadSelection.probes(rttProbes, payload: payload, selection: rttPayloads)
    }
}

extension Validator {
    /// The matrix's `rttPayloads`; nil when absent or invalid (each problem names its
    /// JSON path). Every listed value must be one of the matrix's own payload counts
    /// (sizes): a value no cell has would silently select nothing.
    mutating func rttPayloads(_ v: JSONValue?, _ path: JSONPath, counts: [Int], sizes: [Int], rttProbes: Int) -> RTTPayloadSelection? {
        guard let v else { return nil }
        guard let o = object(v, path, allowed: MatrixLoader.payloadKeys) else { return nil }
        if o.isEmpty {
            fail(path, "expected \"counts\" and/or \"sizes\": the payload counts (sizes) whose cells run the RTT probes")
            return nil
        }
        if rttProbes == 0 {
            fail(path, "selects the cells that run the RTT probes, but \"rttProbes\" is 0 (no cell probes)")
        }
        let before = problems.count
        func listed(_ key: String, what: String, matrix: [Int]) -> Set<Int>? {
            guard o[key] != nil else { return nil }
            let p = path.key(key)
            let values = positiveInts(o[key], p, what: what, max: Int.max)
            // By the entry's own index (positiveInts has already named the malformed ones).
            for (i, e) in (o[key]?.arrayValue ?? []).enumerated() {
                if let n = e.intValue, n >= 1, !matrix.contains(n) {
                    fail(p.index(i), "\(n) is not one of the matrix's payload \(key) (\(matrix.map(String.init).joined(separator: ", ")))")
                }
            }
            return Set(values)
        }
        let c = listed("counts", what: "message count", matrix: counts)
        let s = listed("sizes", what: "message size in bytes", matrix: sizes)
        return problems.count == before ? RTTPayloadSelection(counts: c, sizes: s) : nil
    }
}
