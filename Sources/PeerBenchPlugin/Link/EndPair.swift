/// One figure for each end of the link.
public struct EndPair: Sendable, Equatable, Codable {
    public var client: Double?
    public var server: Double?
    public init(client: Double?, server: Double?) {
        self.client = client
        self.server = server
    }
}
