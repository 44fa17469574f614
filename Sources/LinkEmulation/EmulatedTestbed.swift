import Foundation
public import PeerBenchPlugin
public import PeerBenchSystem
import PeerBenchTestbed
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The `emulated` testbed: a client and a server namespace joined by TUN devices and
/// the userspace emulator. One testbed serves a whole run; each cell's `configure`
/// swaps in that cell's link and seed.
///
/// ```swift
/// let testbed = try EmulatedTestbed()          // as root
/// let (client, server) = try await testbed.configure(link, seed: cellSeed)
/// // ... run the cell in client.namespace / server.namespace ...
/// let counters = testbed.counters()
/// await testbed.shutdown()
/// ```
public final class EmulatedTestbed: Testbed {
    /// The client's address inside its namespace (what the server connects to).
    public static let clientAddress = NamespacePair.clientAddress
    /// The server's address inside its namespace (what the client connects to).
    public static let serverAddress = NamespacePair.serverAddress
    /// Every namespace PeerBench creates starts with this.
    public static let namespacePrefix = NamespacePair.prefix

    private struct State: ~Copyable {
        var pair: NamespacePair?
        var emulator: Emulator?
        /// Root-qdisc drops at `configure` (client, server), so counters start at zero.
        var qdiscDropsAtStart = (client: 0, server: 0)
    }
    private let state: Mutex<State>

    public var mode: LinkMode { .emulated }

    /// Creates the namespaces and devices (MTU `initialMTU` until the first cell), after
    /// removing leftovers of earlier runs that ended without cleaning up. Throws
    /// `LinkSetupError` without CAP_NET_ADMIN, saying to use sudo or `--link none`.
    public init(initialMTU: Int = RadioModel.awdlMTU) throws {
        try Self.checkPrivileges()
        Self.removeLeftovers()
        state = Mutex(State(pair: try NamespacePair(mtu: initialMTU)))
    }

    deinit {
        state.withLock { s in
            s.emulator?.stop()
            s.pair?.remove()
        }
    }

    /// Deletes namespaces left by PeerBench runs whose process is gone (a crash, a
    /// SIGKILL); returns their names. Called by `init`; safe to call any time.
    @discardableResult
    public static func removeLeftovers() -> [String] { NamespacePair.removeLeftovers() }

    /// PeerBench namespaces whose owner is gone, without removing them.
    public static func leftovers() -> [String] { NamespacePair.leftovers() }

    /// The namespaces in use, nil after `shutdown`.
    public var namespaces: (client: NetworkNamespace, server: NetworkNamespace)? {
        state.withLock { s in s.pair.map { ($0.client, $0.server) } }
    }

    public func configure(_ link: ResolvedLink, seed: UInt64) async throws -> (client: Endpoint, server: Endpoint) {
        try configure(EmulatorParameters(link), seed: seed)
    }

    /// Applies emulator parameters directly (tests and benchmarks that need values no
    /// `ResolvedLink` expresses). Same contract as `configure(_:seed:)`.
    @discardableResult
    public func configure(_ parameters: EmulatorParameters, seed: UInt64) throws -> (client: Endpoint, server: Endpoint) {
        try state.withLock { s in
            guard let pair = s.pair else { throw LinkSetupError("the emulated testbed was shut down; create a new one") }
            s.emulator?.stop()
            s.emulator = nil
            // Fragments a previous cell left half-reassembled must not cost this one.
            try FragmentReassembly.drain([pair.client, pair.server])
            try pair.setMTU(parameters.mtu)
            try pair.setShaper(parameters.shaper)
            for tun in [pair.clientTUN, pair.serverTUN] {
                try tun.setSegmentationOffload(parameters.usesSegmentationOffload)
                tun.drain()
            }
            // Before the emulator exists: its channel schedule starts when it is made, and
            // reading the qdiscs' counters runs `tc` (tens of ms on a loaded host), which
            // must not shift the schedule against the caller's clock.
            s.qdiscDropsAtStart = pair.qdiscDrops()
            let emulator = try Emulator(clientFd: pair.clientTUN.fd, serverFd: pair.serverTUN.fd, parameters: parameters, seed: seed)
            emulator.start()
            s.emulator = emulator
            return (
                Endpoint(address: Self.clientAddress, namespace: pair.client),
                Endpoint(address: Self.serverAddress, namespace: pair.server)
            )
        }
    }

    /// The emulator's counters plus the packets the devices' root qdiscs dropped before
    /// the emulator read them (the shaper's limit, or a device queue overrun; cause
    /// `sender_queue`, counted as packets that entered the link too).
    public func counters() -> LinkCounters? {
        state.withLock { s in
            guard var c = s.emulator?.counters() else { return nil }
            guard let pair = s.pair else { return c }
            let now = pair.qdiscDrops()
            let up = max(0, now.client - s.qdiscDropsAtStart.client), down = max(0, now.server - s.qdiscDropsAtStart.server)
            c.packetsUp += up
            c.packetsDown += down
            c.dropsUp += up
            c.dropsDown += down
            c.dropCauses[Self.senderQueueCause] = up + down
            return c
        }
    }

    /// `dropCauses` key of packets the sender-side shaper dropped (its limit reached).
    public static let senderQueueCause = "sender_queue"

    /// How late the emulator delivered packets against their planned time, since `configure`.
    public func schedulingError() -> SchedulingError? {
        state.withLock { $0.emulator?.schedulingError() }
    }

    /// The jitter the emulator planned per packet since `configure` (`Emulator.jitterPlan`).
    public func jitterPlan() -> (up: [Int64], down: [Int64])? {
        state.withLock { $0.emulator?.jitterPlan() }
    }

    public func shutdown() async { shutdownNow() }

    /// Synchronous `shutdown` for signal paths and deinit-like uses. Idempotent.
    public func shutdownNow() {
        state.withLock { s in
            s.emulator?.stop()
            s.emulator = nil
            s.pair?.remove()
            s.pair = nil
        }
    }

    /// For tests: abandons the namespaces as a killed process would, leaving their
    /// removal to the reaper.
    func simulateOwnerDeath() {
        state.withLock { s in
            s.emulator?.stop()
            s.emulator = nil
            s.pair?.simulateOwnerDeath()
            s.pair = nil
        }
    }

    // MARK: Privileges

    /// True when this process may create namespaces and TUN devices.
    public static var hasNetAdmin: Bool {
        if geteuid() == 0 { return true }
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let caps = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return caps & (1 << 12) != 0  // CAP_NET_ADMIN
    }

    static func checkPrivileges() throws {
        guard hasNetAdmin else { throw LinkSetupError(LinkSetupError.privilegeHint) }
        guard access("/dev/net/tun", R_OK | W_OK) == 0 else {
            throw LinkSetupError("/dev/net/tun is missing or not accessible (load the tun module: modprobe tun), or use --link none")
        }
    }
}
