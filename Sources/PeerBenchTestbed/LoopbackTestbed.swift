import PeerBenchPlugin

/// Plain loopback: no emulation, counters unavailable.
public final class LoopbackTestbed: Testbed {
    public init() {}
    public var mode: LinkMode { .none }
    public func configure(_ link: ResolvedLink, seed: UInt64) async throws -> (client: Endpoint, server: Endpoint) {
        (Endpoint(address: "127.0.0.1"), Endpoint(address: "127.0.0.1"))
    }
    public func counters() -> LinkCounters? { nil }
    public func shutdown() async {}
}
