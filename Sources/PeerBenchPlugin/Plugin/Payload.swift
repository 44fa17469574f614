/// Number and size of the bulk phase's messages.
public struct Payload: Sendable, Hashable, Codable {
    public var count: Int
    public var size: Int
    public init(count: Int, size: Int) {
        self.count = count
        self.size = size
    }
}
