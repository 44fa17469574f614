import PeerBenchSystem

/// Where a cell's client and server run, and how the runner reaches them.
public struct Endpoint: Sendable, Codable {
    /// The address the *other* side uses to reach this endpoint.
    public var address: String
    /// The network namespace this endpoint lives in; nil = the current one.
    public var namespace: NetworkNamespace?
    /// A server endpoint a real network reaches (`peerbench serve`): the only address
    /// its data sockets accept packets from. nil = any (namespaces, loopback).
    public var allowedPeer: String?
    /// A server endpoint's data ports: its sockets bind to a free one of these.
    /// nil = any port the kernel picks.
    public var dataPorts: ClosedRange<UInt16>?

    public init(
        address: String, namespace: NetworkNamespace? = nil, allowedPeer: String? = nil,
        dataPorts: ClosedRange<UInt16>? = nil
    ) {
        self.address = address
        self.namespace = namespace
        self.allowedPeer = allowedPeer
        self.dataPorts = dataPorts
    }

    /// Runs blocking work on a fresh thread inside this endpoint's namespace.
    public func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingThread.run(name: name, namespace: namespace, body)
    }

    /// Prefix for running an external program in this endpoint (`ip netns exec NAME`).
    public var commandPrefix: [String] { namespace.map { ["ip", "netns", "exec", $0.name] } ?? [] }
}
