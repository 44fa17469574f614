/// DNS-SD could not give a peer: Avahi missing or not running, nothing or too much found.
public struct DiscoveryError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
