import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing

/// `migrate` with real sockets, real ngtcp2 on both sides and a real network change: in a
/// namespace of the test's own, shaped to 40 Mbit/s, the client's UDP port is blackholed
/// in the middle of a 500 x 16 KiB upload (`PathBlackholeNamespace`: the route from and
/// to it is forbidden, as a NAT rebinding leaves it). With `migrate` the same connection
/// moves to a new port (validated first, docs/protocol/quic.md 4d) and the upload
/// completes, every message once, no reconnect; with
/// `reconnect` alone it stalls until the idle timeout and reconnects only once the port
/// works again.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: PathBlackholeNamespace.canCreate, "needs root, ip and tc for a namespace"))
struct QUICMigrationTests {
    /// 8.2 MB: about 1.7 s at 40 Mbit/s, so a cut 0.5 s after the client's socket appears
    /// (handshake and 3 probes take milliseconds) falls inside the bulk phase.
    static let payload = Payload(count: 500, size: 16_384)
    static let rateMbit = 40

    struct Run {
        var measurement: TransportMeasurement
        /// When the rules went in (`MonotonicClock`, the plugin's clock too).
        var cutAt: UInt64
        var cutPort: UInt16
        /// The client's ports seen after the cut, sampled every 20 ms until its socket closed.
        var portsAfterCut: Set<UInt16>
        /// The last sample before the client closed its socket.
        var lastPorts: [UInt16]
    }

    /// One cell in a fresh namespace (removed on every path): the client's port is cut
    /// `cutAfter` s after its socket appears (nil = never), and let through again
    /// `liftAfter` s after the cut (nil = never).
    /// `allowedPeer`: the server endpoint's only admitted address, as serve's data sockets
    /// have it over `--link remote` (a socket filter on the source address).
    func run(
        _ options: KeyValuePairs<String, JSONValue>, tag: String, cutAfter: Double?, liftAfter: Double? = nil,
        allowedPeer: String? = nil
    ) async throws -> Run {
        let ns = try PathBlackholeNamespace(tag: tag, rateMbit: Self.rateMbit)
        defer { ns.remove() }
        let plugin = try makePlugin(options)
        var cell = CellContext.loopback(payload: Self.payload, rttProbes: 3, timeoutSeconds: 40)
        (cell.client, cell.server) = (ns.endpoint, ns.endpoint)
        cell.server.allowedPeer = allowedPeer
        let c = cell
        let server = try await plugin.startServer(c)
        let serverPort = server.address.port
        let client = Task { try await plugin.runClient(c, server: server.address) }
        var cutAt: UInt64 = 0, cutPort: UInt16 = 0
        do {
            if let cutAfter {
                var ports: [UInt16] = []
                for _ in 0..<500 where ports.isEmpty {
                    ports = try await ns.clientPorts(talkingTo: serverPort)
                    if ports.isEmpty { try await Task.sleep(nanoseconds: 5_000_000) }
                }
                cutPort = try #require(ports.first, "the client's socket appeared")
                try await Task.sleep(nanoseconds: UInt64(cutAfter * 1e9))
                // The port in use now: on a loaded host the client may have judged its
                // first path dead already (three probe timeouts while it or the server
                // was not scheduled) and moved (issue 42: a migration 157 ms before the cut).
                cutPort = try await ns.clientPorts(talkingTo: serverPort).first ?? cutPort
                try ns.blackhole(port: cutPort)
                cutAt = MonotonicClock.now()
                if let liftAfter {
                    try await Task.sleep(nanoseconds: UInt64(liftAfter * 1e9))
                    try ns.lift(port: cutPort)
                }
            }
            var seen = Set<UInt16>(), last: [UInt16] = []
            for _ in 0..<2_000 where cutAfter != nil {
                let ports = try await ns.clientPorts(talkingTo: serverPort)
                if ports.isEmpty { break }
                (seen, last) = (seen.union(ports), ports)
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            let m = try await client.value
            try await server.finish()
            return Run(measurement: m, cutAt: cutAt, cutPort: cutPort, portsAfterCut: seen, lastPorts: last)
        } catch {
            client.cancel()
            server.stop()
            throw error
        }
    }

    static func ms(_ from: UInt64, _ to: UInt64?) -> Double { to.map { Double(Int64(bitPattern: $0 &- from)) / 1e6 } ?? -1 }

    func expectAllOnce(_ m: TransportMeasurement, _ label: String) {
        #expect(m.status == .ok, "\(label): \(m.error ?? "")")
        #expect(
            m.delivery == Delivery(sentMessages: 500, receivedMessages: 500, sentBytes: 500 * 16_384, receivedBytes: 500 * 16_384),
            "\(label): every message exactly once: \(String(describing: m.delivery))")
    }

    @Test(
        "blackholed 4-tuple mid-upload: migrate moves the same connection to a new port (no reconnect, every message once), far sooner than reconnect"
    )
    func migrationBeatsReconnect() async throws {
        // migrate and reconnect both on: the migration keeps the connection, so no reconnect happens.
        let moved = try await run(["migrate": true, "reconnect": true, "idleTimeoutSeconds": 2], tag: "mv", cutAfter: 0.5)
        let m = moved.measurement
        expectAllOnce(m, "migrate")
        #expect(m.reconnects == [], "a migration is not a reconnect: \(String(describing: m.reconnects))")
        let events = try #require(m.migrations)
        #expect(events.count >= 1 && events.count <= 2, "\(events)")
        // The move the cut caused: the first one after it (one before it is a loaded
        // host's spurious move, see `run`).
        let first = try #require(events.first { $0.migratedAtNanos >= moved.cutAt } ?? events.last)
        let detect = Self.ms(moved.cutAt, first.migratedAtNanos)
        let validated = Self.ms(first.migratedAtNanos, first.validatedAtNanos)
        let back = Self.ms(first.migratedAtNanos, first.backAtNanos)
        // The path is judged dead after 3 PTOs without acknowledged stream data (at least
        // 150 ms, counted from the last acknowledgement, a moment before the cut); on this
        // link (RTT a few ms plus tbf's queue of at most 30 ms) under 1.2 s.
        #expect(detect >= 100 && detect <= 1_200, "cut to migration \(detect) ms")
        // The new path's PATH_CHALLENGE leaves with the old path's next probe timeout
        // (~100 ms here) and is answered a round trip later; the move onto one more new
        // socket then resends what the dead path lost, acknowledged a few ms later.
        #expect(validated >= 0 && validated <= 500, "move started to path validated \(validated) ms")
        #expect(back >= validated && back <= 600, "move started to the first acknowledged stream data \(back) ms")
        #expect(
            moved.portsAfterCut.contains { $0 != moved.cutPort } && !moved.lastPorts.contains(moved.cutPort),
            "the client left the blackholed port \(moved.cutPort) for a new one: seen \(moved.portsAfterCut), last \(moved.lastPorts)")
        let quic = try #require(m.extra["quic"]?.objectValue)
        #expect(quic["migrations"]?.arrayValue?.count == events.count, "\(quic)")

        // reconnect alone: the idle timeout (2 s) ends the connection, the re-made one on the
        // same socket gets through once the port is let through again, 4 s after the cut.
        let redone = try await run(["reconnect": true, "idleTimeoutSeconds": 2], tag: "rc", cutAfter: 0.5, liftAfter: 4)
        let r = redone.measurement
        expectAllOnce(r, "reconnect")
        #expect(r.migrations == nil)
        #expect((r.reconnects?.count ?? 0) >= 1, "\(String(describing: r.reconnects))")
        let movedSeconds = Double(m.bulkNanos ?? 0) / 1e9, redoneSeconds = Double(r.bulkNanos ?? 0) / 1e9
        // Unshaped by the cut the upload takes ~1.7 s: migrating costs well under a second,
        // reconnecting the whole dead stretch (4 s) and a handshake.
        #expect(movedSeconds < 3.5, "migrate: bulk \(movedSeconds) s")
        #expect(redoneSeconds > 4.5, "reconnect: bulk \(redoneSeconds) s")
        #expect(redoneSeconds - movedSeconds > 2, "migrate \(movedSeconds) s vs reconnect \(redoneSeconds) s")
        print(
            "QUICMigrationTests: migrate detect \(detect) ms, validated \(validated) ms, back \(back) ms, bulk \(movedSeconds) s, \(events.count) migration(s); reconnect bulk \(redoneSeconds) s, \(r.reconnects?.count ?? 0) reconnect(s), lost-to-resumed \(r.reconnects?.first.map { Self.ms($0.lostAtNanos, $0.resumedAtNanos) } ?? -1) ms"
        )
    }

    /// Over `--link remote` serve binds its data sockets with `Endpoint.allowedPeer`, which
    /// admits only the client's address: a new port of that address gets through, so the
    /// migration works there as here (docs/protocol/quic.md, section 4d).
    @Test("a server that admits only the client's address (serve's allowedPeer) follows the migration to a new port of it")
    func migrationPastServesFilter() async throws {
        let moved = try await run(["migrate": true, "idleTimeoutSeconds": 2], tag: "peer", cutAfter: 0.5, allowedPeer: "127.0.0.1")
        expectAllOnce(moved.measurement, "migrate, allowedPeer")
        let first = try #require(moved.measurement.migrations?.first)
        #expect(Self.ms(first.migratedAtNanos, first.backAtNanos) >= 0 && Self.ms(first.migratedAtNanos, first.backAtNanos) <= 600, "\(first)")
        #expect(moved.measurement.reconnects == nil)
    }

    @Test("no blackhole: migrate never moves on a busy shaped link (no false alarm)")
    func noFalseMigration() async throws {
        let quiet = try await run(["migrate": true], tag: "quiet", cutAfter: nil)
        expectAllOnce(quiet.measurement, "migrate, no cut")
        #expect(quiet.measurement.migrations == [], "\(String(describing: quiet.measurement.migrations))")
    }
}
