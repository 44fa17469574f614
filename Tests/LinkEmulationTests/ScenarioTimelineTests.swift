import Foundation
import PeerBenchTestbed
import Testing

@testable import LinkEmulation
@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

#if canImport(Glibc)
    import Glibc
#endif

/// Scenario timelines against the emulator's clock, first as pure functions, then
/// through the real emulator between two namespaces.
@Suite struct ScenarioTimelineTests {
    let model = RadioModel()

    func link(_ env: String, _ meters: Double, _ scenario: ScenarioSpec) throws -> ResolvedLink {
        try model.resolve(EnvironmentSpec(name: env, kind: .builtIn, json: .string(env)), .meters(meters), scenario: scenario)
    }

    @Test func outageCoversExactlyItsInterval() throws {
        let l = try link("free-field", 10, ScenarioSpec(name: "o", kind: .outage(atSeconds: 1, durationSeconds: 2), json: nil))
        let timeline = try #require((l.channel as? EmulatedChannel)?.scenario)
        // Packets scheduled every 10 ms for 4 s: exactly those in [1 s, 3 s) are out.
        let times = (0..<400).map { UInt64($0) * 10_000_000 }
        let out = times.filter(timeline.isOut(at:))
        #expect(out.count == 200)
        #expect(out.first == 1_000_000_000 && out.last == 2_990_000_000)
        #expect(!timeline.isOut(at: 999_999_999) && timeline.isOut(at: 1_000_000_000) && !timeline.isOut(at: 3_000_000_000))
        #expect(
            l.scenario
                == ScenarioEvent(
                    name: "o", kind: "outage", startSeconds: 1, endSeconds: 3, deadSeconds: 2, deadStartSeconds: 1,
                    timeline: ["0-1 s: as resolved", "1-3 s: nothing crosses either way", "from 3 s: as resolved"]))
    }

    @Test func walkAwayAddsThePathLossOfTheDistanceWalked() throws {
        let env = try #require(model.environment(named: "forest"))
        let l = try link("forest", 10, ScenarioSpec(name: "w", kind: .walkAway(speedMps: 2, to: .meters(30), back: true), json: nil))
        let timeline = try #require((l.channel as? EmulatedChannel)?.scenario)
        // At 5 s the walker is at 20 m; at 10 s at 30 m; at 15 s back at 20 m; at 20 s home.
        let pl10 = RadioModel.pathLossDb(env, distance: 10)
        for (t, d) in [(0.0, 10.0), (5, 20), (10, 30), (15, 20), (20, 10), (60, 10)] {
            let expected = RadioModel.pathLossDb(env, distance: d) - pl10
            #expect(abs(timeline.extraAttenuationDb(at: UInt64(t * 1e9)) - expected) < 1e-9, "at \(t) s")
        }
        #expect(l.scenario?.startSeconds == 0 && l.scenario?.endSeconds == 20)
        // The channel trace sees it: the same seed, 30 m of walking costs that SNR.
        let dynamics = try #require((l.channel as? EmulatedChannel)?.radio)
        var still = ChannelTrace(dynamics, seed: 9), walking = ChannelTrace(dynamics, seed: 9, scenario: timeline)
        still.advance(to: 10_000_000_000)
        walking.advance(to: 10_000_000_000)
        #expect(abs((still.snrDb - walking.snrDb) - timeline.extraAttenuationDb(at: 10_000_000_000)) < 0.5)
    }

    @Test func walkAwayBeyondRangeHasADeadStretch() throws {
        let l = try link("underground", 5, ScenarioSpec(name: "w", kind: .walkAway(speedMps: 10, to: .meters(2_000), back: false), json: nil))
        let e = try #require(l.scenario)
        #expect(e.deadSeconds > 0)
        #expect(e.endSeconds == nil, "without back the link does not return")
        let maxL = try link("underground", 5, ScenarioSpec(name: "w", kind: .walkAway(speedMps: 10, to: .max, back: false), json: nil))
        #expect(maxL.scenario?.deadSeconds == 0, "\"max\" keeps a fade margin above MCS 0")
    }

    @Test func bodyBlockIsPeriodic() throws {
        let l = try link("inner-city", 10, ScenarioSpec(name: "b", kind: .bodyBlock(depthDb: 20, lengthSeconds: 0.5, periodSeconds: 2), json: nil))
        let timeline = try #require((l.channel as? EmulatedChannel)?.scenario)
        for (t, db) in [(0.0, 0.0), (1.9, 0), (2.0, 20), (2.49, 20), (2.5, 0), (4.1, 20), (5, 0)] {
            #expect(timeline.extraAttenuationDb(at: UInt64((t * 1e9).rounded())) == db, "at \(t) s")
        }
        #expect(l.scenario?.startSeconds == 2 && l.scenario?.endSeconds == 2.5)
    }

    @Test func fixedLinksRefuseRadioScenarios() {
        let lab = EnvironmentSpec(name: "lab", kind: .fixed(FixedLink(rateMbps: 10)), json: .null)
        #expect(throws: InputError.self) {
            try model.resolve(
                lab, .meters(1), scenario: ScenarioSpec(name: "b", kind: .bodyBlock(depthDb: 1, lengthSeconds: 1, periodSeconds: 2), json: nil))
        }
        #expect(throws: Never.self) {
            try model.resolve(lab, .meters(1), scenario: ScenarioSpec(name: "o", kind: .outage(atSeconds: 1, durationSeconds: 1), json: nil))
        }
    }

    @Test func traceCursorUsesEachOpportunityOnce() {
        // Opportunities at 1, 1, 2 and 5 ms, repeating every 5 ms.
        var c = TraceCursor(DeliveryOpportunities(MahimahiTrace(file: "t", opportunitiesMs: [1, 1, 2, 5])))
        let ms: UInt64 = 1_000_000
        #expect(c.departure(earliest: 0, bytes: 1_500) == 1 * ms)
        #expect(c.departure(earliest: 0, bytes: 1_500) == 1 * ms)
        #expect(c.departure(earliest: 0, bytes: 700) == 2 * ms)
        #expect(c.departure(earliest: 0, bytes: 700) == 2 * ms, "two small packets share an opportunity")
        #expect(c.departure(earliest: 0, bytes: 1_500) == 5 * ms, "the 100 bytes left at 2 ms, the rest at 5 ms")
        #expect(c.departure(earliest: 7 * ms, bytes: 1_500) == 7 * ms, "the next period's 2 ms opportunity; 6 ms ones are gone")
        #expect(c.departure(earliest: 7 * ms, bytes: 3_000) == 11 * ms, "a packet of two opportunities (10 and 11 ms) leaves with the second")
        #expect(c.departure(earliest: 1_000 * ms + 3 * ms, bytes: 10) == 1_005 * ms, "after a long pause, the right period")
    }
}

/// The timelines through the real emulator: what the counters and the receiver see.
@Suite(.serialized, .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
struct ScenarioEmulatorTests {
    @Test("a 2 s outage drops the datagrams sent inside it, one contiguous run, and counts them as outage drops")
    func outageDropsItsPackets() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        var timeline = ScenarioTimeline()
        timeline.outages = [1_000_000_000..<3_000_000_000]
        var p = EmulatorParameters(delayNanos: 2_000_000, rateBitsPerSecond: 20e6, mtu: 1_500)
        p.scenario = timeline
        let endpoints = try testbed.configure(p, seed: 3)
        // 400 datagrams 10 ms apart: 4 s, starting right after the link came up.
        let seen = try await Traffic.udpBlast(
            from: endpoints.client, to: endpoints.server, port: 47_101, count: 400, size: 200,
            interval: 10_000_000, sinkTimeoutNanos: 5_000_000_000)
        let lost = seen.indices.filter { !seen[$0] }
        let counters = try #require(testbed.counters())
        #expect(counters.dropCauses["outage"] == lost.count, "every missing datagram is an outage drop")
        #expect(counters.dropsUp == lost.count)
        // The emulator's start precedes the first send by a few ms; a descheduled sender
        // may shift a boundary by a datagram or two.
        #expect(lost.count >= 196 && lost.count <= 201, "\(lost.count) lost")
        if let first = lost.first, let last = lost.last {
            #expect(last - first + 1 == lost.count, "one contiguous run: \(first)...\(last)")
            #expect(first >= 70 && first <= 100, "the outage starts at 1 s: datagram \(first)")
        }
    }

    @Test("a 60 dB body block stops delivery during each block and nowhere else")
    func bodyBlockStopsDelivery() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let model = RadioModel()
        let link = try model.resolve(
            EnvironmentSpec(name: "free-field", kind: .builtIn, json: .string("free-field")), .meters(10),
            scenario: ScenarioSpec(name: "b", kind: .bodyBlock(depthDb: 60, lengthSeconds: 0.5, periodSeconds: 1.5), json: nil))
        let endpoints = try await testbed.configure(link, seed: 5)
        let seen = try await Traffic.udpBlast(
            from: endpoints.client, to: endpoints.server, port: 47_102, count: 300, size: 200,
            interval: 10_000_000)
        // Blocks at [1.5, 2.0) and [3.0, 3.5) s of the link's clock. Sending starts some
        // tens of ms after the link (more when the machine is loaded), so the runs of
        // lost datagrams are found, then checked: 0.5 s long (50 datagrams), 1.5 s
        // (150 datagrams) apart, and nothing lost outside them.
        let lost = seen.indices.filter { !seen[$0] }
        var runs: [(start: Int, length: Int)] = []
        for i in lost {
            if let last = runs.last, last.start + last.length == i { runs[runs.count - 1].length += 1 } else { runs.append((i, 1)) }
        }
        let first = try #require(runs.first { $0.length >= 10 }, "no block seen; lost: \(lost)")
        // The blast can end inside the second block (it did, 5 datagrams into it, when the
        // sender started 50 ms after the link): a run cut short by the end of the blast
        // is a block when it starts where one is due.
        func due(_ start: Int) -> Bool {
            let k = (start - first.start) % 150
            return min(k, 150 - k) <= 2
        }
        let blocks = runs.filter { $0.length >= 10 || ($0.start + $0.length == seen.count && due($0.start)) }
        #expect(first.length >= 47 && first.length <= 53, "a 0.5 s block: \(runs)")
        #expect(first.start >= 100 && first.start <= 150, "the first block begins at 1.5 s: \(runs)")
        if blocks.count > 1 { #expect(abs(blocks[1].start - first.start - 150) <= 2, "blocks 1.5 s apart: \(runs)") }
        let stray = lost.count - blocks.map(\.length).reduce(0, +)
        #expect(stray <= 3, "a 10 m free-field link barely loses outside the blocks: \(runs)")
    }

    @Test("the shipped 12/24 Mbit/s mahimahi trace delivers its 18 Mbit/s mean within 3 %")
    func traceReproducesItsRate() async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Traces/steps-12-24mbps.trace"
        let trace = try MahimahiTrace.load(path: path, named: path)
        #expect(trace.opportunitiesMs.count == 3_000 && trace.periodMs == 2_000)
        #expect(abs(trace.rateMbps - 18) < 1e-9)
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        var timeline = ScenarioTimeline()
        timeline.traceUp = DeliveryOpportunities(trace)
        timeline.traceDown = DeliveryOpportunities(trace)
        var p = EmulatorParameters(delayNanos: 1_000_000, mtu: 1_500)
        p.scenario = timeline
        let endpoints = try testbed.configure(p, seed: 1)
        // 1 472-byte datagrams are 1 500-byte IP packets: one opportunity each. Offered
        // at ~29 Mbit/s (one per 0.4 ms) for 4.4 s, above the trace's 24 Mbit/s peak.
        _ = try await Traffic.udpBlast(
            from: endpoints.client, to: endpoints.server, port: 47_103, count: 11_000, size: 1_472,
            interval: 400_000)
        let delivery = try #require(testbed.counters()?.delivery)
        // Two whole periods while the sender was saturating: 0.2-4.2 s.
        let bytes = delivery.up[20..<420].reduce(0, +)
        let mbps = Double(bytes) * 8 / 4 / 1e6
        #expect(abs(mbps - 18) <= 0.03 * 18, "\(mbps) Mbit/s over 4 s")
        // The two halves of a period differ as the trace does: 12 against 24 Mbit/s.
        let low = Double(delivery.up[20..<100].reduce(0, +)) * 8 / 0.8 / 1e6
        let high = Double(delivery.up[120..<200].reduce(0, +)) * 8 / 0.8 / 1e6
        #expect(abs(low - 12) <= 0.05 * 12 && abs(high - 24) <= 0.05 * 24, "low \(low), high \(high)")
    }
}
