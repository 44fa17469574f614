import PeerBenchPlugin
import PeerBenchSystem

/// The order in which a run's cells execute (`"order"` in matrix.json, `--order`).
///
/// The unit of ordering is a *block*: one repetition x environment x distance x
/// payload, holding one cell per transport. Keeping a block's transports next to
/// each other (A B A B) means slow drift of the machine (thermal state, background
/// load) hits every transport alike, so the comparison stays fair.
public enum CellOrder: String, Sendable, Codable, CaseIterable {
    /// The canonical order: blocks in matrix order, transports alternating inside
    /// each block (A B A B). The default.
    case interleaved
    /// All cells of the first transport, then all of the second (A A B B): useful
    /// when a transport's cells should run back to back, not for comparisons.
    case sequential
    /// Blocks in an order shuffled with the run seed, and the transports inside each
    /// block shuffled too: same seed, same order; still A B / B A within a block.
    case shuffled

    /// Puts canonical-order `cells` into this order. `seed` drives `shuffled`.
    func arrange(_ cells: [Cell], seed: UInt64) -> [Cell] {
        switch self {
        case .interleaved:
            return cells
        case .sequential:
            // Stable: within a transport, canonical order is kept.
            return cells.enumerated().sorted { a, b in
                (a.element.transport.index, a.offset) < (b.element.transport.index, b.offset)
            }.map(\.element)
        case .shuffled:
            var rng = SeededRandom(seed: seed, stream: "cell-order.shuffled")
            var blocks = CellOrder.blocks(of: cells)
            rng.shuffle(&blocks)
            for i in blocks.indices { rng.shuffle(&blocks[i]) }
            return blocks.flatMap { $0 }
        }
    }

    /// Splits canonical-order cells into blocks (repetition x environment x distance x
    /// payload). A transport that ignores payloads joins the block it was expanded in.
    public static func blocks(of cells: [Cell]) -> [[Cell]] {
        var blocks: [[Cell]] = []
        var current: [Cell] = []
        var payload: Payload?
        for cell in cells {
            if let first = current.first {
                let sameSite =
                    first.repetition == cell.repetition && first.environment == cell.environment
                    && first.distance == cell.distance
                let samePayload = cell.payload == nil || payload == nil || cell.payload == payload
                // A transport seen twice means the matrix moved on to the next payload.
                let repeatsTransport = current.contains { $0.transport.index == cell.transport.index }
                if !(sameSite && samePayload) || repeatsTransport {
                    blocks.append(current)
                    current = []
                    payload = nil
                }
            }
            current.append(cell)
            if payload == nil { payload = cell.payload }
        }
        if !current.isEmpty { blocks.append(current) }
        return blocks
    }
}

extension Matrix {
    /// The matrix's `"order"` key (validated by `MatrixLoader`); `interleaved` when absent.
    public var order: CellOrder {
        document["order"]?.stringValue.flatMap(CellOrder.init(rawValue:)) ?? .interleaved
    }
}
