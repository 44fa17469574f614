import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchWorkloads
import QUICTransport
import TCPTransport
import Testing
import UDPTransport

@testable import LinkEmulation

/// The receiver's bulk series and loaded RTT probes over a real emulated link of known
/// rate: the series must add up to what the REPORT says, span the bulk phase at one
/// entry per 100 ms, and show the link's rate in each full interval. Needs root.
@Suite(.serialized, .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
struct BulkSeriesOverLinkTests {
    /// The link every test runs over: 20 Mbit/s, 5 ms each way.
    static let link = EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 20e6, mtu: 1_500)

    /// One cell of `plugin` between `endpoints`: its server started, its client run, the server finished.
    static func run(
        _ plugin: any TransportPlugin, _ endpoints: (client: Endpoint, server: Endpoint), payload: Payload,
        probes: Int = 10
    ) async throws -> TransportMeasurement {
        var cell = CellContext.loopback(payload: payload, rttProbes: probes, timeoutSeconds: 60, environment: "lab")
        cell.client = endpoints.client
        cell.server = endpoints.server
        let server = try await plugin.startServer(cell)
        let m = try await plugin.runClient(cell, server: server.address)
        try await server.finish()
        return m
    }

    /// The probes sent during the bulk phase: at least 5, at most one per 50 ms of it.
    static func loadedProbes(_ m: TransportMeasurement, _ context: String = "") throws -> [UInt64] {
        let loaded = try #require(m.rttLoadedNanos)
        let bulkSeconds = Double(m.bulkNanos ?? 0) / 1e9
        #expect(loaded.count >= 5 && Double(loaded.count) <= bulkSeconds / 0.05 + 1, "\(context)\(loaded.count) probes in \(bulkSeconds) s")
        return loaded
    }

    /// 20 Mbit/s carries 250 000 bytes per 100 ms.
    static let bytesPerInterval = 20e6 / 8 * 0.1

    /// `eachInterval`: every full interval near the link's rate (tcp); else their mean
    /// near the transfer's own rate and at least half the link's (quic, whose congestion
    /// controller backs off on the emulator's tail drops, leaving intervals short).
    static func checkSeries(_ m: TransportMeasurement, datagrams: Bool, eachInterval: Bool = true) throws {
        let series = try #require(m.bulkSeries)
        let delivery = try #require(m.delivery)
        #expect(series.intervalNanos == 100_000_000)
        #expect(series.bytes.reduce(0, +) == delivery.receivedBytes)
        if datagrams { #expect(series.datagrams?.reduce(0, +) == delivery.receivedMessages) } else { #expect(series.datagrams == nil) }
        // The series runs from the first byte received to the last; the bulk time also
        // holds the first byte's one-way trip and the REPORT's.
        let expected = Double(m.bulkNanos ?? 0) / 1e8
        #expect(
            Double(series.bytes.count) >= expected - 2 && Double(series.bytes.count) <= expected + 1,
            "\(series.bytes.count) intervals for \(expected * 0.1) s of bulk")
        // The full intervals (not the first or last) carry the link's rate: on average
        // 0.75-1.15 of it, and never more than it. A receiver cannot get more than the
        // link released, but one it could not read for a while reads the backlog in
        // the next interval: beside two busy loops (issue 42) one interval had 172 kB
        // and the next 303 kB, above 1.15 x 250 kB. So the bound is on what has arrived
        // by the end of each full interval, from the start of the first: at most the
        // link's rate for that long plus one interval (what the first, partial interval
        // may have left unread). A link 15 % too fast fails it within ten intervals.
        let full = series.bytes.dropFirst().dropLast()
        let mean = Double(full.reduce(0, +)) / Double(max(1, full.count))
        if eachInterval {
            #expect(mean >= 0.75 * bytesPerInterval && mean <= 1.15 * bytesPerInterval, "mean \(mean) of \(series.bytes)")
        } else {
            // quic's congestion controller backs off on the emulator's tail drops, once
            // or more: a fresh clone on a quiet machine carried 0.74 of the rate (two
            // short intervals of 115 and 103 kB). That is the controller's figure; what
            // the series itself decides is that its full intervals carry what the
            // transfer carried (the bulk time also holds the edges, so a little more),
            // and never less than half the link's rate.
            let own = Double(delivery.receivedBytes) / max(1, Double(m.bulkNanos ?? 0) / 1e8)
            print("quic series: full intervals \(Int(mean)) bytes on average, the transfer \(Int(own)) per 100 ms, the link \(Int(bytesPerInterval))")
            #expect(mean >= 0.8 * own && mean <= 1.5 * own, "mean \(mean) against the transfer's own \(own) per interval: \(series.bytes)")
            #expect(mean >= 0.5 * bytesPerInterval && mean <= 1.15 * bytesPerInterval, "mean \(mean) of \(series.bytes)")
        }
        let arrived = full.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + $1) }
        let over = arrived.enumerated().first { Double($0.element) > Double($0.offset + 2) * bytesPerInterval }
        #expect(
            over == nil,
            "never above the link's rate: \(over.map { "\($0.element) bytes by the end of full interval \($0.offset + 1)" } ?? ""): \(series.bytes)")
        if eachInterval {
            // Each one, with the next, at least half the rate: with two CPU hogs beside
            // the test an interval where the userspace emulator or the sender was not
            // scheduled carried 0.61 and 0.67 of it (two in one run, tcp with loaded
            // probes, 2 hogged runs of test.sh --repeat; the old 0.75 per interval failed
            // there), and one the receiver could not read carried 0.40, the next 1.27
            // (the timing suites four at a time beside two busy loops, issue 42): what
            // it did not read in one interval it reads in the next.
            for (b, next) in zip(full, full.dropFirst()) {
                #expect(Double(b + next) >= 2 * 0.5 * bytesPerInterval, "\(series.bytes)")
            }
        }
    }

    @Test("tcp over 20 Mbit/s, 5 ms: the series sums to received_bytes, one entry per 100 ms, ~250 kB each")
    func tcpSeries() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        let plugin = TCPPlugin()
        let m = try await Self.run(plugin, endpoints, payload: Payload(count: 600, size: 4096))
        #expect(m.status == .ok)
        #expect(m.rttLoadedNanos == nil, "loaded probes are off by default")
        try Self.checkSeries(m, datagrams: false)
    }

    @Test("udp paced at 16 Mbit/s over 20 Mbit/s: bytes and datagrams per interval sum to the REPORT's counts")
    func udpSeries() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        let plugin = UDPPlugin(UDPOptions(rateMbps: 16))
        let m = try await Self.run(plugin, endpoints, payload: Payload(count: 1_500, size: 1_200))
        let series = try #require(m.bulkSeries)
        let delivery = try #require(m.delivery)
        #expect(series.bytes.reduce(0, +) == delivery.receivedBytes)
        #expect(series.datagrams?.reduce(0, +) == delivery.receivedMessages)
        #expect(series.bytes.count >= 8 && series.bytes.count <= 11, "1.8 MB at 16 Mbit/s is 0.9 s: \(series.bytes)")
        // 16 Mbit/s of payload is 200 000 bytes (166-167 datagrams) per full interval.
        // A descheduled pacer catches up in the next interval (the machine is shared),
        // so single intervals get room and their mean is held tight.
        let full = zip(series.bytes, series.datagrams ?? []).dropFirst().dropLast()
        for (b, d) in full {
            #expect(abs(Double(b) - 200_000) <= 0.3 * 200_000, "\(series.bytes)")
            #expect(d * 1_200 == b)
        }
        let mean = Double(full.map(\.0).reduce(0, +)) / Double(max(1, full.count))
        #expect(abs(mean - 200_000) <= 0.05 * 200_000, "mean \(mean) of \(series.bytes)")
    }

    @Test("tcp loaded probes: head-of-line blocking behind queued data shows (loaded p50 > 3 x idle p50), series still at the link rate")
    func tcpLoadedProbes() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        let plugin = TCPPlugin(TCPOptions(noDelay: true, loadedRttProbes: LoadedRttProbes(intervalMs: 50)))
        let m = try await Self.run(plugin, endpoints, payload: Payload(count: 600, size: 4096), probes: 20)
        #expect(m.status == .ok)
        // At most one probe per 50 ms of the bulk phase; fewer when writing a probe
        // itself waits for room in a full socket buffer (that wait is part of its RTT).
        let loaded = try Self.loadedProbes(m)
        let idle = m.rttNanos.sorted()[m.rttNanos.count / 2]
        let busy = loaded.sorted()[loaded.count / 2]
        #expect(busy > 3 * idle, "loaded p50 \(busy.milliseconds) ms vs idle \(idle.milliseconds) ms")
        try Self.checkSeries(m, datagrams: false)
    }

    @Test("udp loaded probes on the same socket pair: answered, and close to the path RTT when the link is not full")
    func udpLoadedProbes() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        let plugin = UDPPlugin(UDPOptions(rateMbps: 10, loadedRttProbes: LoadedRttProbes(intervalMs: 50)))
        let m = try await Self.run(plugin, endpoints, payload: Payload(count: 1_500, size: 1_200), probes: 20)
        let loaded = try #require(m.rttLoadedNanos)
        let bulkSeconds = Double(m.bulkNanos ?? 0) / 1e9
        #expect(Double(loaded.count) >= bulkSeconds / 0.05 - 3, "\(loaded.count) probes in \(bulkSeconds) s")
        // Half the link's rate: no standing queue, so a loaded probe takes the 10 ms path
        // plus at most a few serialisation delays of 1 200-byte datagrams (0.5 ms each).
        let busy = loaded.sorted()[loaded.count / 2].milliseconds
        #expect(busy >= 10 && busy < 16, "loaded p50 \(busy) ms")
        #expect(m.extra["udp"]?["loaded_probes_sent"]?.intValue == loaded.count)
    }

    static func quic(_ options: KeyValuePairs<String, JSONValue>) throws -> QUICPlugin {
        let reader = try PluginOptions(.object(JSONObject(options)), path: JSONPath.root)
        defer { try? reader.finish() }
        return try QUICPlugin(options: reader)
    }

    @Test(
        "quic over 20 Mbit/s, 5 ms: the SERIES sums to received_bytes at the link rate; loaded probes on the control stream stay below tcp's same-connection ones"
    )
    func quicSeriesAndLoadedProbes() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        let plugin = try Self.quic(["loadedRttProbes": ["intervalMs": 50]])
        let m = try await Self.run(plugin, endpoints, payload: Payload(count: 600, size: 4096), probes: 20)
        #expect(m.status == .ok)
        try Self.checkSeries(m, datagrams: false, eachInterval: false)
        let loaded = try Self.loadedProbes(m)
        #expect(m.extra["quic"]?["loaded_probes_sent"]?.intValue == loaded.count)
        let idle = m.rttNanos.sorted()[m.rttNanos.count / 2].milliseconds
        let busy = loaded.sorted()[loaded.count / 2].milliseconds
        #expect(busy >= idle, "a loaded probe shares the link's queue with the data")

        // The same transfer over tcp with probes on its one connection: they wait behind
        // every byte in the socket buffers too; quic's PING on its own stream does not.
        let tcp = TCPPlugin(TCPOptions(noDelay: true, loadedRttProbes: LoadedRttProbes(intervalMs: 50)))
        let t = try await Self.run(tcp, endpoints, payload: Payload(count: 600, size: 4096), probes: 20)
        let tcpLoaded = try #require(t.rttLoadedNanos)
        let tcpBusy = tcpLoaded.sorted()[tcpLoaded.count / 2].milliseconds
        print("loaded RTT p50 over 20 Mbit/s 5 ms: quic \(busy) ms (idle \(idle) ms), tcp \(tcpBusy) ms")
        #expect(busy < tcpBusy, "quic loaded p50 \(busy) ms vs tcp's \(tcpBusy) ms")
    }

    @Test(
        "tcp loaded probes on a separate connection: no head-of-line blocking, so far below the same-connection probes; the data's series is unchanged"
    )
    func tcpSeparateFlow() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        var p50 = [LoadedRttProbes.Flow: Double]()
        for flow in [LoadedRttProbes.Flow.same, .separate] {
            let plugin = TCPPlugin(TCPOptions(noDelay: true, loadedRttProbes: LoadedRttProbes(intervalMs: 50, flow: flow)))
            let m = try await Self.run(plugin, endpoints, payload: Payload(count: 600, size: 4096), probes: 20)
            #expect(m.status == .ok)
            try Self.checkSeries(m, datagrams: false)
            let loaded = try Self.loadedProbes(m, "\(flow): ")
            p50[flow] = loaded.sorted()[loaded.count / 2].milliseconds
            let idle = m.rttNanos.sorted()[m.rttNanos.count / 2].milliseconds
            #expect(p50[flow]! >= idle, "\(flow): a loaded probe shares the link's queue with the data")
        }
        print("tcp loaded RTT p50 over 20 Mbit/s 5 ms: same connection \(p50[.same]!) ms, separate connection \(p50[.separate]!) ms")
        // The separate flow waits only in the link's queue, not in the data
        // connection's socket buffers.
        #expect(p50[.separate]! < p50[.same]!, "separate \(p50[.separate]!) ms vs same \(p50[.same]!) ms")
    }

    @Test("udp loaded probes on a separate socket pair over a busy link: answered, close to the path RTT when the link is not full")
    func udpSeparateFlow() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        let plugin = UDPPlugin(UDPOptions(rateMbps: 10, loadedRttProbes: LoadedRttProbes(intervalMs: 50, flow: .separate)))
        let m = try await Self.run(plugin, endpoints, payload: Payload(count: 1_500, size: 1_200), probes: 20)
        #expect(m.status == .ok)
        let loaded = try Self.loadedProbes(m)
        let busy = loaded.sorted()[loaded.count / 2].milliseconds
        #expect(busy >= 10 && busy < 16, "loaded p50 \(busy) ms on a half-full 10 ms link")
        #expect(m.extra["udp"]?["loaded_probes_sent"]?.intValue == loaded.count)
    }

    @Test(
        "quic loaded probes on a second connection and on the data connection's control stream: no head-of-line blocking on either, both far below tcp's same-connection ones"
    )
    func quicSeparateFlow() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let endpoints = try testbed.configure(Self.link, seed: 1)
        var p50 = [String: Double]()
        for flow in ["same", "separate"] {
            let plugin = try Self.quic(["loadedRttProbes": ["intervalMs": 50, "flow": .string(flow)]])
            let m = try await Self.run(plugin, endpoints, payload: Payload(count: 600, size: 4096), probes: 20)
            #expect(m.status == .ok)
            try Self.checkSeries(m, datagrams: false, eachInterval: false)
            let loaded = try Self.loadedProbes(m, "\(flow): ")
            p50[flow] = loaded.sorted()[loaded.count / 2].milliseconds
        }
        print("quic loaded RTT p50 over 20 Mbit/s 5 ms: control stream \(p50["same"]!) ms, second connection \(p50["separate"]!) ms")
        // Both wait in the link's queue that the data fills (~25 ms at this rate), not
        // behind the data itself: far below the 130-150 ms tcp's same-connection probes
        // see here (tcpLoadedProbes). How close the two are to each other is the
        // machine's: 30 and 71 ms beside two busy loops (a fresh clone, 2026-12-02),
        // within a few ms on a quiet one.
        #expect(p50["same"]! < 90 && p50["separate"]! < 90, "separate \(p50["separate"]!) ms, same \(p50["same"]!) ms")
    }
}
