import PeerBenchJSON
import PeerBenchPlugin

/// Cells by status, in the order of `CellStatus.allCases`.
public struct StatusCounts: Sendable, Equatable, Codable {
    public var counts: [CellStatus: Int]

    public init(_ summary: RunSummary) { counts = summary.byStatus }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DynamicKey.self)
        counts = [:]
        for key in c.allKeys {
            guard let status = CellStatus(rawValue: key.stringValue) else { continue }
            counts[status] = try c.decode(Int.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DynamicKey.self)
        for status in CellStatus.allCases { try c.encode(counts[status] ?? 0, forKey: DynamicKey(status.rawValue)) }
    }
}
