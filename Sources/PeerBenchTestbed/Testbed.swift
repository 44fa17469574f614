import PeerBenchPlugin

/// How cells are connected: `emulated` (namespaces + userspace emulator), `none`
/// (loopback), `remote` (another host running `peerbench serve`).
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
    /// Where the cells' servers run when not here: the peer host that `--link remote`
    /// reaches. nil (the default) = each cell's plugin starts its own server on the
    /// server endpoint.
    var serverHost: (any RemoteServerHost)? { get }
    /// Adds what the testbed knows about the cell just run to its record's link section
    /// (a real link's context: peer address, control RTT, interface counters). Default:
    /// nothing. It takes the link section, not the record, so the testbed needs nothing
    /// of the run core.
    func annotate(_ link: inout RecordLink)
    /// Why the testbed can run no further cell (the peer host went away), nil while it
    /// can. The runner stops after the cell that saw it; the run is resumable.
    var lostReason: String? { get }
}

extension Testbed {
    public var serverHost: (any RemoteServerHost)? { nil }
    public func annotate(_ link: inout RecordLink) {}
    public var lostReason: String? { nil }
}
