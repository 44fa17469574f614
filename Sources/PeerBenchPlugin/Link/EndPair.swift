/// One figure for each end of the link.
public struct EndPair: Sendable, Equatable, Codable {
    /// The client's and the server's figure; nil for an end not measured.
    public var client: Double?, server: Double?
    public init(client: Double?, server: Double?) {
        self.client = client
        self.server = server
    }
}
