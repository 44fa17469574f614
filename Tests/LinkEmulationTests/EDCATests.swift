import Foundation
import PeerBenchCore
import PeerBenchPlugin
import Testing

@testable import LinkEmulation

#if canImport(Glibc)
    import Glibc
#endif

/// Service classes on the emulated link: the class a socket is marked with decides the
/// queue its packets wait in, in the sender's shaper and in the emulator, and the
/// performance mode decides whether packets wait for off-channel slots. Every flow
/// runs between the namespaces the test creates.
@Suite(.serialized, .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
struct EDCATests {
    /// 20 Mbit/s, 1 ms one way, always on: a full-size datagram takes 0.6 ms on the air.
    /// Unshaped, the emulator's queue is 100 packets (60 ms) per category, so an
    /// overloaded one fills within a fraction of a second.
    static func link(shaped: Bool) -> EmulatorParameters {
        var p = EmulatorParameters(delayNanos: 1_000_000, rateBitsPerSecond: 20e6, mtu: RadioModel.awdlMTU)
        if !shaped {
            p.senderShaping = nil
            p.queue = QueueLimits(packets: 100, bytes: 1 << 20)
        }
        return p
    }

    /// Answered probes and their median RTT (ms), of 60 probes of `serviceClass` 20 ms
    /// apart while `cross` runs.
    static func probeRTT(_ serviceClass: ServiceClass, under cross: CrossTrafficSpec, shaped: Bool, port: UInt16) async throws -> (
        answered: Int, p50: Double
    ) {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(link(shaped: shaped), seed: 3)
        let flow = try await CrossTrafficFlow(cross, client: client, server: server, mtu: RadioModel.awdlMTU)
        let ready = Flag()
        // Lost probes cost the pinger 0.4 s each: the echo waits longer than a run of them.
        async let echoed = Traffic.udpEcho(server, port: port, ready: ready, serviceClass: serviceClass, idleNanos: 15_000_000_000)
        try ready.wait()
        let pings = try await Traffic.udpPings(
            from: client, to: server, port: port, count: 60, gapNanos: 20_000_000,
            timeoutNanos: 400_000_000, serviceClass: serviceClass, endMarkers: 5)
        _ = flow.finish()
        _ = try await echoed
        return (pings.count, pings.isEmpty ? .infinity : pings.map(\.1).quantile(0.5).milliseconds)
    }

    @Test(
        "under saturating best-effort cross traffic, interactive-voice probes keep a short RTT; best-effort ones queue",
        arguments: [true, false])
    func voiceOvertakesBestEffort(shaped: Bool) async throws {
        // shaped: the default path, the queue forms in the sender's shaper (saturating
        // sender). Unshaped: it forms in the emulator's per-category queues (a sender
        // paced at 1.2 x the link, which the drop-tail queue cuts back).
        let cross = CrossTrafficSpec(serviceClass: .bestEffort, direction: .up, rateMbps: shaped ? nil : 24)
        let voice = try await Self.probeRTT(.interactiveVoice, under: cross, shaped: shaped, port: 7101)
        let bestEffort = try await Self.probeRTT(.bestEffort, under: cross, shaped: shaped, port: 7102)
        print(
            "EDCA figure (shaped: \(shaped)): voice \(voice.answered)/60 answered, p50 \(voice.p50) ms; best effort \(bestEffort.answered)/60, p50 \(bestEffort.p50) ms"
        )
        // Unloaded the round trip is 2 ms plus at most one 0.6 ms frame ahead each way.
        #expect(voice.answered >= 58 && voice.p50 < 8, "voice \(voice) (shaped: \(shaped))")
        // Best effort waits behind the cross flow's queue (and, unshaped, loses what
        // arrives while it is full).
        #expect(
            bestEffort.answered >= 20 && bestEffort.p50 > 20 && bestEffort.p50 > 4 * voice.p50,
            "best effort \(bestEffort), voice \(voice) (shaped: \(shaped))")
    }

    @Test("background yields to best effort: two saturating flows, best effort takes the link", arguments: [true, false])
    func backgroundYields(shaped: Bool) async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(Self.link(shaped: shaped), seed: 4)
        // Shaped: saturating senders, held back by the sender's shaper. Unshaped: each
        // flow paced at 1.2 x the link (24 Mbit/s), as in the voice test, so the queue
        // forms in the emulator's per-category queues. Unpaced, two senders outrun the
        // emulator's reader on a slow host and the tun device's one FIFO drops blind to
        // the class: CI once measured best effort 4.3 and background 14.3 that way.
        let rate: Double? = shaped ? nil : 24
        let background = try await CrossTrafficFlow(
            CrossTrafficSpec(serviceClass: .background, direction: .up, rateMbps: rate),
            client: client, server: server, mtu: RadioModel.awdlMTU)
        let bestEffort = try await CrossTrafficFlow(
            CrossTrafficSpec(serviceClass: .bestEffort, direction: .up, rateMbps: rate),
            client: client, server: server, mtu: RadioModel.awdlMTU)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        let be = bestEffort.finish().goodputMbps ?? 0, bk = background.finish().goodputMbps ?? 0
        print("EDCA figure (shaped: \(shaped)): best effort \(be) Mbit/s, background \(bk) Mbit/s")
        // 20 Mbit/s of IP packets is 19.6 of UDP payload; the flows overlap for ~2 of their 2.1-2.2 s.
        // Without priority each flow would get about half (9.8 and 9.8). A loaded machine
        // starves the senders and the emulator's reader, so the queues are not always
        // backlogged and background slips in more often. Measured with two CPU hogs
        // beside the test (two `yes` loops, 28 runs, 14 per argument): best effort
        // 13.9-19.6 Mbit/s, background 0.84-3.05 (ratio up to 0.18); the issue 28 run
        // beside other suites: 14.4 and 3.7 (ratio 0.26, the largest seen). So: best
        // effort above half the link (10, 28 % under the lowest seen) and background
        // under half of best effort (twice the largest ratio seen; equal sharing is 1).
        // The paced unshaped arm, 5 runs beside two hogs: 19.56-19.59 and 0.85-0.89.
        #expect(be > 10, "best effort \(be) Mbit/s, background \(bk) (shaped: \(shaped))")
        #expect(bk < 0.5 * be, "background \(bk) Mbit/s against best effort \(be) (shaped: \(shaped))")
    }

    @Test("a paced cross flow carries its offered rate and reports it")
    func pacedFlowGoodput() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(Self.link(shaped: true), seed: 5)
        let flow = try await CrossTrafficFlow(
            CrossTrafficSpec(serviceClass: .interactiveVideo, direction: .both, rateMbps: 4),
            client: client, server: server, mtu: RadioModel.awdlMTU)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        let r = flow.finish()
        #expect(r.serviceClass == "interactiveVideo")
        #expect(r.offeredMbps == 4)
        // Both directions at 4 Mbit/s each: 8 in total, less what the pacer loses to load.
        #expect((6.5...8.5).contains(r.goodputMbps ?? 0), "goodput \(r.goodputMbps ?? -1) Mbit/s")
    }

    @Test("realtime removes the off-channel waits: probes cross while bulk's channel is away; bulk keeps them")
    func realtimeHasNoOffChannelWait() async throws {
        var bulk = ResolvedLink(environment: "lab", distanceMeters: 10, distanceLabel: "10")
        bulk.delayMs = 1
        bulk.rateMbps = 50
        bulk.mtu = RadioModel.awdlMTU
        bulk.channel = EmulatedChannel(schedule: .awdl(offSlots: 2, windows: false))
        let realtime = bulk.adapted(to: WifiSettings(performanceMode: .realtime, serviceClass: .interactiveVideo))
        #expect((realtime.channel as? EmulatedChannel)?.schedule == .realtime)
        #expect(realtime.rateMbps == 57.1, "the off-channel time becomes air time: 50 x 16/14")
        #expect(bulk.adapted(to: .default).rateMbps == 50)

        var rtts: [PerformanceMode: [Double]] = [:]
        var planned: [PerformanceMode: PlannedReleases] = [:]
        for (mode, link) in [(PerformanceMode.bulk, bulk), (.realtime, realtime)] {
            let testbed = try EmulatedTestbed()
            defer { testbed.shutdownNow() }
            let (client, server) = try await testbed.configure(link, seed: 6)
            let ready = Flag()
            async let echoed = Traffic.udpEcho(server, port: 7103, ready: ready)
            try ready.wait()
            // 1.3 s of probes 3 ms apart: the bulk schedule leaves the channel for one slot
            // (65.5 ms) in every 8 (524 ms), so the probes span at least two whole
            // off-channel slots, three when the phase falls that way.
            let pings = try await Traffic.udpPings(from: client, to: server, port: 7103, count: 430, gapNanos: 3_000_000)
            _ = try await echoed
            rtts[mode] = pings.map(\.1.milliseconds)
            planned[mode] = try PlannedReleases(testbed.counters())
        }
        let slot = Double(ChannelSchedule.awdlSlotNanos) / 1e6
        for (mode, r) in rtts {
            print("EDCA figure: \(mode) max RTT \(r.max()!) ms, p99 \(r.map { UInt64($0 * 1e6) }.quantile(0.99).milliseconds) ms")
        }
        // Probes that waited most of a slot (three quarters, 49 ms), in either mode.
        let bulkTail = rtts[.bulk]!.filter { $0 > 0.75 * slot }, realtimeTail = rtts[.realtime]!.filter { $0 > 0.75 * slot }
        // Bulk: the pings go one at a time, so in each off-channel slot one of them waits
        // for most of it: at least two (three was a coin toss on the schedule's phase).
        #expect(bulkTail.count >= 2, "bulk tail \(bulkTail) ms")
        // What the emulator planned (`PlannedReleases`): under bulk nothing crosses while
        // the channel is off, and what waited leaves as the slot ends; under realtime the
        // probes cross all through the same stretches. (Until issue 42 realtime was held
        // to at most one probe over 49 ms, a loaded machine's scheduling stall; with the
        // timing suites four at a time beside other work three took 56-78 ms, 14 of 430
        // beside two busy loops too: the host's stalls, not the link's.)
        let offSlots = ChannelSchedule.awdl(offSlots: 2, windows: false)
        let bulkPlan = try #require(planned[.bulk]), realtimePlan = try #require(planned[.realtime])
        let bulkSlots = bulkPlan.offChannelSlots(of: offSlots, delayNanos: 1_000_000)
        for (inside, _) in bulkSlots {
            #expect(inside.allSatisfy { bulkPlan.bytes($0) == 0 }, "bulk: the channel is off in bins \(inside): \(inside.map(bulkPlan.bytes))")
        }
        #expect(bulkSlots.count >= 2 && bulkSlots.filter { bulkPlan.bytes($0.end) > 0 }.count >= bulkSlots.count - 1, "bulk: \(bulkSlots)")
        // A stall of the pinger as long as a slot could leave one such stretch empty.
        let realtimeSlots = realtimePlan.offChannelSlots(of: offSlots, delayNanos: 1_000_000)
        let crossed = realtimeSlots.filter { $0.inside.contains { realtimePlan.bytes($0) > 0 } }.count
        #expect(
            realtimeSlots.count >= 2 && crossed >= realtimeSlots.count - 1,
            "realtime: probes crossed in \(crossed) of \(realtimeSlots.count) of bulk's off stretches")
        let realtimeP50 = rtts[.realtime]!.sorted()[rtts[.realtime]!.count / 2]
        #expect(realtimeP50 < 10, "realtime: the plain round trip, p50 \(realtimeP50) ms; tail \(realtimeTail)")
    }

    @Test("the emulator classifies IPv4 and IPv6 packets by DSCP, as RFC 8325 maps it to access categories")
    func classification() {
        func frame(_ bytes: [UInt8]) -> AccessCategory {
            let f = [UInt8](repeating: 0, count: AccessCategory.vnetHeaderBytes) + bytes
            return f.withUnsafeBytes { AccessCategory.of(frame: $0.baseAddress!, length: f.count) }
        }
        for sc in ServiceClass.allCases {
            let tos = UInt8(sc.trafficClassByte)
            #expect(frame([0x45, tos]) == AccessCategory(sc), "IPv4 \(sc)")
            #expect(frame([0x60 | tos >> 4, (tos & 0x0f) << 4]) == AccessCategory(sc), "IPv6 \(sc)")
        }
        #expect(frame([0x45, 48 << 2]) == .voice, "CS6 is network control: AC_VO")
        #expect(frame([0x45, 10 << 2]) == .bestEffort, "AF11 is high-throughput data: AC_BE")
        #expect(EDCAParameters.default(.background).aifsMicros == 79)
        #expect(EDCAParameters.default(.voice).aifsMicros == 34)
        #expect(EDCAParameters.extraAirtimeNanos(.background) == 36_000)
        #expect(EDCAParameters.extraAirtimeNanos(.voice) == 0)
    }
}
