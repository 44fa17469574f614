import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The rules every transport plugin must keep (docs/PLUGINS.md), checked the same way
/// for each: swift-log's LogHandler conformance tests are the model. A plugin's test
/// target describes how to run it on loopback and calls `checkAll()` (or one check
/// per `@Test`); see Tests/PluginContractTests for the built-in plugins.
public struct PluginContract: Sendable {
    /// The plugin under test.
    public var plugin: any TransportPlugin.Type
    /// Its matrix `options` object (JSON text) for a loopback cell that succeeds.
    public var options: String
    /// The bulk phase of the loopback cell (ignored by plugins that do not use payloads).
    public var payload: Payload
    public var probes: Int
    /// An option value the plugin must refuse: its key and the JSON text of the value.
    public var badOption: (key: String, value: String)
    /// Matrix options for `checkCancelReturnsWithinTheGrace` when they differ (an
    /// exec client that waits for ever); nil uses `options`.
    public var silentOptions: String?
    /// Whether the plugin sends `rttMethod` `pipelined` probes pipelined (docs/PLUGINS.md,
    /// "RTT methods"); false for one that always ping-pongs and says so.
    public var pipelines: Bool
    /// Whether the transport has a congestion controller the record names (tcp, tls, quic).
    public var congestionControlled: Bool
    /// Whether the record's `cpu_seconds` measures the plugin's work (false for exec,
    /// whose work is another program's: both null).
    public var measuresCPU: Bool

    public init(
        _ plugin: any TransportPlugin.Type, options: String = "{}", payload: Payload = Payload(count: 200, size: 1_000),
        probes: Int = 5, badOption: (key: String, value: String), silentOptions: String? = nil, pipelines: Bool = true,
        congestionControlled: Bool = false, measuresCPU: Bool = true
    ) {
        self.congestionControlled = congestionControlled
        self.measuresCPU = measuresCPU
        self.plugin = plugin
        self.options = options
        self.payload = payload
        self.probes = probes
        self.badOption = badOption
        self.silentOptions = silentOptions
        self.pipelines = pipelines
    }

    private var name: String { plugin.descriptor.name }

    /// Every check, in order.
    public func checkAll() async throws {
        try checkBadOptionsAreNamed()
        try await checkCountsAndRecordKeys()
        try await checkRTTMethodIsHonouredOrNamed()
        try await checkCancelReturnsWithinTheGrace()
        try await checkServerStoppedBeforeItsClient()
    }

    /// A misspelt key and a bad value are both refused with their JSON path.
    public func checkBadOptionsAreNamed() throws {
        let at = JSONPath.root.key("transports").index(0).key("options")
        var misspelt = try #require(JSONParser.parse(options).objectValue)
        misspelt["noSuchOptionAnywhere"] = .bool(true)
        let reader = try PluginOptions(.object(misspelt), path: at)
        _ = try plugin.init(options: reader)
        let unknown = #expect(throws: InputError.self, "\(name): an unknown key must be rejected") { try reader.finish() }
        #expect(unknown?.problems.first?.path == "$.transports[0].options.noSuchOptionAnywhere", "\(name): \(String(describing: unknown))")

        var wrong = try #require(JSONParser.parse(options).objectValue)
        wrong[badOption.key] = try JSONParser.parse(badOption.value)
        let bad = #expect(throws: InputError.self, "\(name): \(badOption.key) = \(badOption.value) must be rejected") {
            let r = try PluginOptions(.object(wrong), path: at)
            _ = try plugin.init(options: r)
            try r.finish()
        }
        #expect(bad?.problems.first?.path == "$.transports[0].options.\(badOption.key)", "\(name): \(String(describing: bad))")
    }

    /// One cell through the real runner: `ok`, every message and byte delivered
    /// exactly once, every probe answered, and every key of the record present.
    public func checkCountsAndRecordKeys() async throws {
        let records = try await runMatrix(
            [plugin], transports: #"[{"plugin": "\#(name)", "options": \#(options)}]"#,
            counts: "[\(payload.count)]", sizes: "[\(payload.size)]", probes: probes)
        let r = try #require(records.first, "\(name): no record")
        #expect(records.count == 1)
        #expect(r["status"] == "ok", "\(name): \(r["error"] ?? .null)")
        let keys = try #require(r.objectValue).map(\.key)
        #expect(keys == Record.topLevelKeys, "\(name): the record's keys differ from Record's")
        let delivery = try #require(r["delivery"]?.objectValue, "\(name): no delivery")
        if plugin.descriptor.usesPayload {
            #expect(delivery["sent_messages"]?.intValue == payload.count, "\(name)")
            #expect(delivery["received_messages"]?.intValue == payload.count, "\(name)")
            #expect(delivery["sent_bytes"]?.intValue == payload.count * payload.size, "\(name)")
            #expect(delivery["received_bytes"]?.intValue == payload.count * payload.size, "\(name)")
            #expect(delivery["duplicated"]?.intValue == 0, "\(name)")
            #expect(r["rtt_ms"]?["count"]?.intValue == probes, "\(name): every probe answered on loopback")
            #expect((r["throughput_mbps"]?.doubleValue ?? 0) > 0, "\(name)")
        } else {
            // Payload-free plugins (ranging) count their own rounds: what arrived was sent.
            let received = try #require(delivery["received_messages"]?.intValue)
            #expect(received > 0 && received <= (delivery["sent_messages"]?.intValue ?? 0), "\(name)")
            #expect(r["rtt_ms"]?["count"]?.intValue == received, "\(name): one RTT per answered round")
        }
        if congestionControlled {
            #expect(r["congestion_control"]?.stringValue?.isEmpty == false, "\(name): congestion_control \(r["congestion_control"] ?? .null)")
        } else {
            #expect(r["congestion_control"] == .null, "\(name): congestion_control \(r["congestion_control"] ?? .null)")
        }
        // Each side ran a real exchange, so each burned some CPU; no side can have burned
        // more than every core for the whole cell.
        let total = try #require(r["total_seconds"]?.doubleValue)
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        for side in ["client", "server"] {
            let cpu = r["cpu_seconds"]?[side]
            if measuresCPU {
                let v = cpu?.doubleValue ?? -1
                #expect(v > 0 && v <= total * cores, "\(name): cpu_seconds.\(side) \(cpu ?? .null) in a \(total) s cell")
            } else {
                #expect(cpu == .null, "\(name): cpu_seconds.\(side) \(cpu ?? .null)")
            }
        }
    }

    /// With `rttMethod` `pipelined` the record says which method produced `rtt_ms`:
    /// `pipelined` for a plugin that pipelines (every probe answered), `ping-pong` for
    /// one that cannot; never null when probes ran. Without the key: `ping-pong`.
    public func checkRTTMethodIsHonouredOrNamed() async throws {
        let transports = #"[{"plugin": "\#(name)", "options": \#(options)}]"#
        let pipelined = try await runMatrix(
            [plugin], transports: transports, counts: "[\(payload.count)]", sizes: "[\(payload.size)]",
            probes: probes, rttMethod: .pipelined)
        let r = try #require(pipelined.first, "\(name): no record")
        #expect(r["status"] == "ok", "\(name): \(r["error"] ?? .null)")
        #expect(r["rtt_method"] == (pipelines ? "pipelined" : "ping-pong"), "\(name): rtt_method \(r["rtt_method"] ?? .null)")
        if pipelines {
            #expect(r["rtt_ms"]?["count"]?.intValue == probes, "\(name): every pipelined probe answered on loopback")
            #expect(r["extra"]?["rtt_pipelined"]?["last_echo_ms"]?.doubleValue != nil, "\(name): extra.rtt_pipelined")
        }
    }

    /// A client talking to a peer that never answers returns within the grace period
    /// once the cell is cancelled, with an error (thrown or in the measurement).
    public func checkCancelReturnsWithinTheGrace() async throws {
        let peer = try SilentPeer()
        let cell = CellContext.loopback(payload: payload, rttProbes: probes, timeoutSeconds: 60, distanceMeters: 3)
        let client = try makePlugin(silentOptions ?? options)
        after(milliseconds: 300) { cell.cancellation.cancel() }
        let start = MonotonicClock.now()
        let outcome = await Result { try await client.runClient(cell, server: peer.address) }
        let seconds = Double(MonotonicClock.elapsed(since: start)) / 1e9
        #expect(seconds < 0.3 + cellGraceSeconds, "\(name): took \(seconds) s after a cancel at 0.3 s")
        if case .success(let m) = outcome { #expect(m.status != .ok, "\(name): a cancelled client reported ok") }
    }

    /// A server stopped before its client ran: `finish()` returns at once, and the
    /// client then fails rather than hanging until the deadline or reporting `ok`.
    public func checkServerStoppedBeforeItsClient() async throws {
        let deadline = 20.0
        let cell = CellContext.loopback(payload: payload, rttProbes: probes, timeoutSeconds: deadline, distanceMeters: 3)
        let p = try makePlugin(options)
        let server = try await p.startServer(cell)
        server.stop()
        let start = MonotonicClock.now()
        try? await server.finish()
        #expect(Double(MonotonicClock.elapsed(since: start)) / 1e9 < cellGraceSeconds, "\(name): finish() after stop() did not return")
        let outcome = await Result { try await p.runClient(cell, server: server.address) }
        let seconds = Double(MonotonicClock.elapsed(since: start)) / 1e9
        #expect(seconds < deadline, "\(name): the client waited for the deadline (\(seconds) s)")
        if case .success(let m) = outcome { #expect(m.status != .ok, "\(name): a client without a server reported ok") }
    }

    private func makePlugin(_ options: String) throws -> any TransportPlugin {
        let reader = try PluginOptions(try JSONParser.parse(options), path: JSONPath.root.key("transports").index(0).key("options"))
        return try plugin.init(options: reader)
    }
}

/// A peer that never answers, for stream and datagram plugins alike: a TCP listener
/// that never accepts (connections wait in its backlog) and a UDP socket that never
/// reads, on the same loopback port.
public struct SilentPeer: Sendable {
    public let address: SocketAddress
    private let tcp: Socket
    private let udp: Socket

    public init() throws {
        var attempt = 0
        while true {
            let tcp = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
            try tcp.bind(SocketAddress(host: "127.0.0.1", port: 0))
            try tcp.listen()
            let address = try tcp.localAddress()
            let udp = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            do {
                try udp.bind(address)
            } catch  where attempt < 10 {
                attempt += 1  // the port is taken for UDP: try another
                continue
            }
            (self.tcp, self.udp, self.address) = (tcp, udp, address)
            return
        }
    }
}

extension Result where Failure == any Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
