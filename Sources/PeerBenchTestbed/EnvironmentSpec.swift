import PeerBenchJSON
import PeerBenchPlugin

/// A surrounding: a built-in radio environment, an inline radio profile, or fixed
/// link parameters.
public struct EnvironmentSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case builtIn
        case radio(JSONValue)
        case fixed(FixedLink)
    }
    public var name: String
    public var kind: Kind
    /// As written in matrix.json; part of the cell id.
    public var json: JSONValue

    public init(name: String, kind: Kind, json: JSONValue) {
        self.name = name
        self.kind = kind
        self.json = json
    }
}
