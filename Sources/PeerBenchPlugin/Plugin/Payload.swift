/// Number and size of the bulk phase's messages.
public struct Payload: Sendable, Hashable, Codable {
    /// Messages, and bytes in each.
    public var count: Int, size: Int
    public init(count: Int, size: Int) {
        self.count = count
        self.size = size
    }

    public enum CodingKeys: String, CodingKey { case count, size }

    /// Flow `i`'s share of the messages when `n` parallel flows carry them (a bulk's
    /// `streams`, docs/WORKLOADS.md): the first `count % n` flows carry one more, so the
    /// cell moves the same bytes whatever the number of flows.
    public func share(flow i: Int, of n: Int) -> Payload {
        Payload(count: count / n + (i < count % n ? 1 : 0), size: size)
    }
}
