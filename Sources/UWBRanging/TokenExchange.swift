#if canImport(Glibc)
    import Glibc
#endif

/// What one side of an exchange got and what it cost.
public struct TokenExchange: Sendable {
    /// The peer's token as received (decode it with `DiscoveryToken(serialized:)`).
    public var peerTokenBytes: [UInt8]
    /// From the start of the exchange (connect) to holding the peer's token, nanoseconds.
    public var elapsedNanos: UInt64
    /// Token-carrying operations this side made: prepare writes (GATT) or messages sent.
    public var writeOperations: Int
    /// Token-carrying operations for the peer's token: reads and read blobs (GATT) or messages received.
    public var readOperations: Int
    /// Every request/response pair, set-up included (GATT: MTU exchange and execute write), each one connection interval.
    public var totalOperations: Int

    /// The peer's token, or `NIError(.invalidConfiguration)` naming what is wrong with it.
    public func peerToken() throws(NIError) -> DiscoveryToken { try DiscoveryToken(serialized: peerTokenBytes) }
}
