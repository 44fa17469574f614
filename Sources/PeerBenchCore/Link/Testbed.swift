/// Where a cell's client and server run, and how the runner reaches them.
public struct Endpoint: Sendable, Codable {
    /// The address the *other* side uses to reach this endpoint.
    public var address: String
    /// The network namespace this endpoint lives in; nil = the current one.
    public var namespace: NetworkNamespace?

    public init(address: String, namespace: NetworkNamespace? = nil) {
        self.address = address
        self.namespace = namespace
    }

    /// Runs blocking work on a fresh thread inside this endpoint's namespace.
    public func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingThread.run(name: name, namespace: namespace, body)
    }

    /// Prefix for running an external program in this endpoint (`ip netns exec NAME`).
    public var commandPrefix: [String] { namespace.map { ["ip", "netns", "exec", $0.name] } ?? [] }
}

/// How cells are connected: `emulated` (namespaces + userspace emulator), `none`
/// (loopback), `remote` (another host; later).
public enum LinkMode: String, Sendable, CaseIterable, Codable {
    case emulated, none, remote
}

/// Joins a client and a server endpoint through a link. One testbed serves a whole
/// run; `configure` is called before each cell with that cell's link and seed.
public protocol Testbed: AnyObject, Sendable {
    var mode: LinkMode { get }
    /// Applies `link` (seeded with `seed`, so a rerun emulates the same trace) and
    /// returns the endpoints. Resets the counters.
    func configure(_ link: ResolvedLink, seed: UInt64) async throws -> (client: Endpoint, server: Endpoint)
    /// The emulator's counters since `configure`, nil when there is no emulator.
    func counters() -> LinkCounters?
    /// Removes everything the testbed created. Idempotent.
    func shutdown() async
}

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
