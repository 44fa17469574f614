import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import QUICTransport
import Testing

/// Loaded RTT probes of the quic plugin: PINGs on the control stream while the bulk
/// stream is busy (docs/protocol/quic.md), over loopback.
@Suite(.timeLimit(.minutes(2))) struct QUICLoadedProbesTests {
    @Test("probes every 20 ms during a loopback bulk phase: all answered, and not queued behind the bulk stream's data")
    func loadedProbesOnTheControlStream() async throws {
        let plugin = try makePlugin(["loadedRttProbes": ["intervalMs": 20]])
        let cell = CellContext.loopback(payload: Payload(count: 4_000, size: 16_384), rttProbes: 5, timeoutSeconds: 60)
        let server = try await plugin.startServer(cell)
        let m = try await withTimeout(60) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.status == .ok)
        let loaded = try #require(m.rttLoadedNanos)
        let bulk = Double(m.bulkNanos ?? 0)
        // One probe per 20 ms of the bulk phase (the first 20 ms after it starts).
        #expect(loaded.count >= 3 && Double(loaded.count) <= bulk / 20e6 + 1, "\(loaded.count) probes in \(bulk / 1e6) ms")
        #expect(m.extra["quic"]?["loaded_probes_sent"]?.intValue == loaded.count, "every probe answered")
        // Its own stream: a probe waits for a packet slot, not for the rest of the bulk
        // data (before the scheduler served stream IDs in order, each probe left only
        // once the bulk stream had handed ngtcp2 all its data: RTTs of the whole phase).
        let p50 = loaded.sorted()[loaded.count / 2]
        #expect(Double(p50) < bulk / 4, "loaded p50 \(Double(p50) / 1e6) ms in a \(bulk / 1e6) ms bulk phase")
        #expect(m.delivery?.receivedBytes == 65_536_000)
        #expect(m.rttNanos.count == 5)
    }

    @Test("off by default: no loaded RTT, no loaded_probes_sent")
    func offByDefault() async throws {
        let plugin = try makePlugin()
        let cell = CellContext.loopback(payload: Payload(count: 100, size: 1_000), rttProbes: 2)
        let server = try await plugin.startServer(cell)
        let m = try await withTimeout(30) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(m.rttLoadedNanos == nil)
        #expect(m.extra["quic"]?["loaded_probes_sent"] == nil)
    }

    @Test("separate flow: a second QUIC connection (PROBE_HELLO) carries the probes; the server still ends with the cell's session")
    func separateConnection() async throws {
        let plugin = try makePlugin(["loadedRttProbes": ["intervalMs": 10, "flow": "separate"]])
        let cell = CellContext.loopback(payload: Payload(count: 4_000, size: 16_384), rttProbes: 5, timeoutSeconds: 60)
        let server = try await plugin.startServer(cell)
        let start = MonotonicClock.now()
        let m = try await withTimeout(60) { try await plugin.runClient(cell, server: server.address) }
        try await server.finish()
        #expect(MonotonicClock.elapsed(since: start) < 20_000_000_000)
        #expect(m.status == .ok)
        #expect(m.delivery?.receivedBytes == 65_536_000)
        let loaded = try #require(m.rttLoadedNanos)
        let bulk = Double(m.bulkNanos ?? 0)
        // The prober stops when the client's thread, woken by the REPORT, tells it to.
        #expect(loaded.count >= 3 && Double(loaded.count) <= 1.5 * bulk / 10e6 + 5, "\(loaded.count) probes in \(bulk / 1e6) ms")
        let sent = try #require(m.extra["quic"]?["loaded_probes_sent"]?.intValue)
        #expect(sent >= loaded.count && sent <= loaded.count + 1, "at most the probe in flight at the stop goes unanswered")
        #expect(loaded.allSatisfy { $0 > 0 && Double($0) < bulk })
    }

    @Test("separate flow with a bulk phase shorter than the probe connection's handshake, and with none: the cell is ok")
    func separateFlowShortOrNoBulk() async throws {
        let plugin = try makePlugin(["loadedRttProbes": ["intervalMs": 10, "flow": "separate"]])
        for payload in [Payload(count: 5, size: 100), nil] {
            let cell = CellContext.loopback(payload: payload, rttProbes: 3)
            let server = try await plugin.startServer(cell)
            let m = try await withTimeout(30) { try await plugin.runClient(cell, server: server.address) }
            try await server.finish()
            #expect(m.status == .ok, "\(String(describing: payload))")
            #expect(m.rttNanos.count == 3)
            if payload == nil { #expect(m.rttLoadedNanos == nil, "no bulk phase, no probe connection") }
        }
    }
}
