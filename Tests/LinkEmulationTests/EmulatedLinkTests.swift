import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Testing

@testable import LinkEmulation

#if canImport(Glibc)
    import Glibc
#endif

/// Real namespaces, real TUN devices, real kernel stacks. Serialized: the tests share
/// two cores and measure time. Traffic only goes to 10.201.0.1/.2, which exist only
/// inside the namespaces each test creates and removes. Needs root (CAP_NET_ADMIN).
@Suite(.serialized, .enabled(if: EmulatedTestbed.hasNetAdmin, "needs CAP_NET_ADMIN: run the tests as root"))
struct EmulatedLinkTests {
    @Test("10 ms one-way delay gives a 20 ms UDP round trip, never less, at most 5 ms plus the emulator's lateness more")
    func delay() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(EmulatorParameters(delayNanos: 10_000_000, mtu: 1_500), seed: 1)
        let ready = Flag()
        async let echoed = Traffic.udpEcho(server, port: 7001, ready: ready)
        try ready.wait()
        let pings = try await Traffic.udpPings(from: client, to: server, port: 7001, count: 100, gapNanos: 2_000_000)
        #expect(try await echoed == 100)
        #expect(pings.count == 100)
        let p50 = pings.map(\.1).quantile(0.5).milliseconds
        // What the emulator decides: never before the delay. What the host adds on top is
        // the emulator's own delivery lateness (measured by it in the same run, once per
        // direction) plus the pinger's and the echo's wake-ups. Those were 1 ms on a quiet
        // host; with the timing suites four at a time beside two busy loops (issue 42)
        // the median round trip was 1.5 and 2.9 ms over the 20 planned, with an emulator
        // lateness of 0.1 ms. 5 ms, a quarter of the round trip, still fails a link that
        // adds a packet's air time or a timer tick per direction; how late the emulator
        // itself delivers is scripts/bench-link.sh's scheduling-error figure.
        #expect(pings.map(\.1).min()!.milliseconds >= 20, "no packet may arrive before its delay")
        let late = try #require(testbed.schedulingError()?.percentileMicros(0.5))
        let allowed = 5 + 2 * Double(late) / 1_000
        #expect(p50 - 20 <= allowed, "RTT p50 \(p50) ms: more than \(allowed) ms over the 20 planned (emulator lateness p50 \(late) us)")
        let c = try #require(testbed.counters())
        #expect(c.packetsUp == 101 && c.packetsDown == 100, "\(c)")
        #expect(c.dropsUp == 0 && c.dropsDown == 0)
    }

    @Test("5 % independent loss over 20 000 datagrams: within the 99 % binomial interval, same seed same drops")
    func independentLoss() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let n = 20_000, p = 0.05
        func run(seed: UInt64, port: UInt16) async throws -> [Bool] {
            let (client, server) = try testbed.configure(EmulatorParameters(lossProbability: p, mtu: 1_500), seed: seed)
            let seen = try await Traffic.udpBlast(from: client, to: server, port: port, count: n, size: 64, interval: 50_000)
            let c = try #require(testbed.counters())
            // Every missing datagram was dropped by the emulator for loss, none elsewhere.
            #expect(c.dropCauses["loss"] == seen.filter { !$0 }.count, "\(c)")
            return seen
        }
        let first = try await run(seed: 42, port: 7002)
        let lost = first.filter { !$0 }.count
        // 99 % interval of Binomial(20 000, 0.05): mean 1 000, sd 30.8, +- 2.576 sd.
        let sd = (Double(n) * p * (1 - p)).squareRoot()
        #expect(abs(Double(lost) - Double(n) * p) <= 2.576 * sd, "lost \(lost) of \(n)")
        let again = try await run(seed: 42, port: 7003)
        #expect(again == first, "same seed must drop the same datagrams")
        let other = try await run(seed: 43, port: 7004)
        #expect(other != first, "another seed drops other datagrams")
    }

    @Test("a 50 Mbit/s link carries TCP at 0.85-1.0 x its rate")
    func rateLimit() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(
            EmulatorParameters(delayNanos: 2_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), seed: 3)
        let goodput = try await Traffic.tcpGoodput(from: client, to: server, port: 7005, bytes: 15_000_000)
        #expect(goodput >= 0.85 * 50e6 && goodput <= 1.0 * 50e6, "goodput \(goodput / 1e6) Mbit/s")
    }

    @Test("unpaced UDP over a 50 Mbit/s lossless link: the sender is held back, < 5 % lost, few queue drops")
    func unpacedUDPBackpressure() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(
            EmulatorParameters(delayNanos: 2_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), seed: 9)
        // 6 000 x 1 400 bytes (67 Mbit) back to back: 1.3 s at 50 Mbit/s. The default send
        // buffer and a 16 MiB one (what the udp plugin forces): both must block, not drop.
        for (port, sendBuffer): (UInt16, Int32) in [(7015, 0), (7016, 16 << 20)] {
            let before = try #require(testbed.counters())
            let start = MonotonicClock.now()
            let seen = try await Traffic.udpBlast(
                from: client, to: server, port: port, count: 6_000, size: 1_400, interval: 0,
                sendBufferBytes: sendBuffer)
            // Start to end marker: includes the sender's final 200 ms wait when the socket
            // buffer is small (a big one leaves the data queued, and the marker behind it).
            let seconds = Double(MonotonicClock.now() - start) / 1e9
            let c = try #require(testbed.counters())
            let lost = seen.filter { !$0 }.count
            let queueDrops = c.dropCauses["queue"]! - before.dropCauses["queue"]!
            #expect(Double(lost) < 0.05 * Double(seen.count), "sndbuf \(sendBuffer): lost \(lost) of \(seen.count); \(c)")
            #expect(queueDrops < 100, "sndbuf \(sendBuffer): \(queueDrops) queue drops; \(c)")
            #expect(c.dropCauses[EmulatedTestbed.senderQueueCause]! - before.dropCauses[EmulatedTestbed.senderQueueCause]! == 0, "\(c)")
            // Delivered at close to the rate: 67.2 Mbit of payload in >= 1.3 s.
            let mbps = Double(seen.filter { $0 }.count * 1_400 * 8) / seconds / 1e6
            #expect(mbps > 0.75 * 50 && mbps <= 50.5, "sndbuf \(sendBuffer): \(mbps) Mbit/s of payload")
        }
    }

    @Test("without the sender-side shaper the same sender overflows the emulator's queue")
    func unpacedUDPWithoutShaper() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        var p = EmulatorParameters(delayNanos: 2_000_000, rateBitsPerSecond: 50e6, mtu: 1_500)
        p.senderShaping = nil
        let (client, server) = try testbed.configure(p, seed: 9)
        let seen = try await Traffic.udpBlast(from: client, to: server, port: 7017, count: 6_000, size: 1_400, interval: 0)
        let c = try #require(testbed.counters())
        print("emulator figure: unshaped blast, \(seen.filter { !$0 }.count) of 6000 lost, queue drops \(c.dropCauses["queue"] ?? -1)")
        // A loaded machine slows the unpaced sender, so less overflows. With two CPU
        // hogs beside the test (10 runs): 2 948-4 723 queue drops, and 1 041 in a
        // hogged `test.sh --repeat` run after the other link suites (the old > 3 000
        // failed both). 600 (10 % of the datagrams) is 42 % under the lowest seen and
        // twice the 5 % the shaped sender above may lose at most.
        #expect(seen.filter { !$0 }.count > 600, "\(c)")
        #expect(c.dropCauses["queue"]! > 600, "\(c)")
    }

    @Test("jitter spreads the delay, keeps packet order, and repeats with the seed")
    func jitterKeepsOrder() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let parameters = EmulatorParameters(delayNanos: 5_000_000, jitterNanos: 2_000_000, mtu: 1_500)
        let (client, server) = try testbed.configure(parameters, seed: 6)
        let n = 2_000
        let got = try await Traffic.oneWayDelays(from: client, to: server, port: 7008, count: n, gapNanos: 500_000)
        #expect(got.count == n)
        #expect(got.map(\.0) == Array(0..<got.count), "packets must arrive in the order sent (by their sequence numbers)")
        let first = try #require(testbed.jitterPlan()?.up)

        // What the emulator decided, free of this host's scheduling noise (issue 42,
        // item 5: a same-seed comparison of wall-clock delays differed by 0.7 ms on a
        // loaded two-core host). One planned jitter per packet, two-sided around the
        // delay with the configured 2 ms sd, floored at -5 ms (no packet leaves before
        // it is on the air).
        #expect(first.count == n, "one planned jitter per packet sent up")
        let ms = first.map { Double($0) / 1e6 }
        let mean = ms.reduce(0, +) / Double(ms.count)
        let sd = (ms.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ms.count - 1)).squareRoot()
        let early = Double(ms.filter { $0 < 0 }.count) / Double(ms.count)
        #expect(abs(mean) < 0.2 && sd > 1.8 && sd < 2.2, "planned jitter mean \(mean) ms, sd \(sd) ms (configured 2 ms)")
        #expect(early > 0.45 && early < 0.55, "planned jitter is two-sided: \(early) of packets planned early")
        #expect(ms.min()! >= -5, "no packet planned before its departure: min \(ms.min()!) ms")

        // The plan is what the packets got: the delivered delays spread (a jitter-free
        // link would show an interquartile range near zero) around the 5 ms delay. Loose
        // bounds on wall-clock figures: order keeping narrows the spread, a loaded host
        // lifts a minority of samples. Quartiles, not mean and sd, for the same reason.
        let delays = got.map(\.1)
        #expect(delays.min()!.milliseconds < 5, "some packets arrive early: the jitter is two-sided")
        let q1 = delays.quantile(0.25).milliseconds, median = delays.quantile(0.5).milliseconds, q3 = delays.quantile(0.75).milliseconds
        #expect(q3 - q1 > 0.4 && q3 - q1 < 4, "one-way delay quartiles \(q1) / \(median) / \(q3) ms")
        #expect(median > 5 && median < 12, "median one-way delay \(median) ms")

        // Same seed, same plan, packet for packet; another seed's differs by about the
        // jitter (the difference of two 2 ms draws has a median size of 1.9 ms).
        func rerun(seed: UInt64, port: UInt16) async throws -> [Int64] {
            let (c, s) = try testbed.configure(parameters, seed: seed)
            let again = try await Traffic.oneWayDelays(from: c, to: s, port: port, count: n, gapNanos: 500_000)
            #expect(again.count == n)
            return try #require(testbed.jitterPlan()?.up)
        }
        let same = try await rerun(seed: 6, port: 7013), other = try await rerun(seed: 8, port: 7014)
        #expect(same == first, "same seed: \(zip(first, same).filter { $0 != $1 }.count) of \(n) planned jitters differ (\(same.count) planned)")
        let differences = zip(first, other).map { abs(Double($0 - $1)) / 1e6 }.sorted()
        let dOther = differences.isEmpty ? 0 : differences[differences.count / 2]
        #expect(other.count == n && dOther > 1, "other seed: planned jitters differ by a median of only \(dOther) ms")
    }

    @Test("a full queue drops with cause queue, or off_channel during an off-channel slot")
    func queueDrops() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        // 2 Mbit/s drains one 1 000-byte datagram per 4 ms; 200 are sent within ~10 ms into
        // a 20-packet queue, so about 20 + 3 arrive and the rest is dropped. A slow host
        // stretches the burst, and the queue drains meanwhile: at 8 Mbit/s (until issue
        // 42) a burst stretched to ~80 ms beside two busy loops delivered 96, not at most
        // 60; at 2 Mbit/s the burst may take 160 ms. The emulator's own queue is under
        // test: no sender-side shaper, which would hold the burst back in the sending
        // socket (unpacedUDPBackpressure).
        var p0 = EmulatorParameters(rateBitsPerSecond: 2e6, queue: QueueLimits(packets: 20, bytes: 1 << 20), mtu: 1_500)
        p0.senderShaping = nil
        let (client, server) = try testbed.configure(p0, seed: 7)
        let seen = try await Traffic.udpBlast(from: client, to: server, port: 7009, count: 200, size: 972, interval: 50_000)
        let c = try #require(testbed.counters())
        let delivered = seen.filter { $0 }.count
        #expect(c.dropCauses["queue"]! == 200 - delivered, "\(c)")
        #expect(delivered >= 20 && delivered <= 60, "delivered \(delivered)")
        #expect(c.dropCauses["loss"] == 0 && c.dropCauses["off_channel"] == 0)

        // The same burst sent while the channel is off overflows the queue with cause
        // off_channel. One slot on, then seven off (65.5 to 524 ms after configure, when
        // the schedule starts), and the burst sent 150 ms after configure returns: it
        // lands in the off stretch however late configure returns or the sender runs, up
        // to 370 ms in all. (AWDL's own sequence has one off slot of 65.5 ms, which the
        // burst missed when configure returned late on a loaded host: 32 off_channel
        // drops, not 50, beside two busy loops.)
        let slot = ChannelSchedule.awdlSlotNanos
        var p = EmulatorParameters(
            rateBitsPerSecond: 8e6, schedule: ChannelSchedule(name: "custom", slotNanos: slot, onChannel: [true] + Array(repeating: false, count: 7)),
            queue: QueueLimits(packets: 20, bytes: 1 << 20), mtu: 1_500)
        p.delayNanos = 0
        p.senderShaping = nil
        let (client2, server2) = try testbed.configure(p, seed: 7)
        Traffic.sleepUntil(MonotonicClock.now() + 150_000_000)
        _ = try await Traffic.udpBlast(from: client2, to: server2, port: 7012, count: 100, size: 972, interval: 50_000)
        let c2 = try #require(testbed.counters())
        #expect(c2.dropCauses["off_channel"]! >= 50, "\(c2)")
    }

    @Test("a 16 384-byte UDP datagram crosses a 1 484-byte MTU as 12 IP packets")
    func fragmentation() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(EmulatorParameters(delayNanos: 1_000_000, mtu: RadioModel.awdlMTU), seed: 4)
        let ready = Flag()
        async let got: Int = server.run("udp-one") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            try s.bind(SocketAddress(host: server.address, port: 7006))
            try s.setReceiveTimeout(nanoseconds: 3_000_000_000)
            ready.set()
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
            defer { buf.deallocate() }
            return try s.receive(buf) ?? -1
        }
        try ready.wait()
        _ = try await client.run("udp-send") {
            let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
            let payload = [UInt8](repeating: 7, count: 16_384)
            return try payload.withUnsafeBytes { try s.send($0, to: SocketAddress(host: server.address, port: 7006)) ?? -1 }
        }
        #expect(try await got == 16_384)
        let c = try #require(testbed.counters())
        #expect(c.packetsUp == 12, "\(c)")
        // 8-byte UDP header + payload, plus a 20-byte IP header per fragment.
        #expect(c.bytesUp == 16_384 + 8 + 12 * 20, "\(c)")
        #expect(c.packetsDown == 0)
    }

    @Test("an off-channel slot every 8 slots shows as a periodic RTT tail")
    func offChannelTail() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(
            EmulatorParameters(delayNanos: 1_000_000, schedule: .awdl(offSlots: 2, windows: false), mtu: RadioModel.awdlMTU), seed: 5)
        let ready = Flag()
        async let echoed = Traffic.udpEcho(server, port: 7007, ready: ready)
        try ready.wait()
        let pings = try await Traffic.udpPings(from: client, to: server, port: 7007, count: 600, gapNanos: 3_000_000)
        _ = try await echoed
        let rtts = pings.map(\.1)
        let slot = ChannelSchedule.awdlSlotNanos
        // Most probes see the plain 2 ms round trip, not a slot's wait. The bound is a
        // quarter slot, not 3 ms: the probes are wall-clock round trips of normal threads,
        // and a fresh clone of 1f183f8 on a quiet host of this kind measured a median of
        // 3.07 ms (2026-12-02); what separates "crossed" from "waited for the channel" is
        // the slot, 65.5 ms.
        #expect(rtts.quantile(0.5) < slot / 4, "p50 \(rtts.quantile(0.5).milliseconds) ms")
        // ... the one sent into an off-channel slot waits up to a slot (65.5 ms; at least
        // ~55 ms, since a probe goes out every few ms and so soon after the slot begins),
        // about one per off-channel slot in the run (one every 524 ms). A loaded host
        // only adds slow probes.
        let tail = pings.filter { Double($0.1) > 50e6 }
        let runNanos = Double(pings.last!.0 - pings.first!.0)
        #expect(
            tail.count >= 3 && Double(tail.count) >= (runNanos / Double(8 * slot)).rounded(.down) - 1,
            "tail: \(tail.map { $0.1.milliseconds }) in \(runNanos / 1e9) s")

        // When they cross is what the emulator planned (`PlannedReleases`): nothing in
        // either direction while the channel is off (from 2 ms after a slot begins, the
        // delay and what left just before it, to 1 ms after it ends), and what waited
        // (the probe sent into the slot, or the echo of one sent just before it)
        // released as the slot ends. (Until issue 42 this was asserted on the probes'
        // round trips: at most a slot plus 15 ms, three quarters completing within 5 ms
        // of one phase; beside two busy loops with the timing suites four at a time one
        // took 80.7 ms, and one of seven completed 11 ms off the others' phase.)
        let releases = try PlannedReleases(testbed.counters())
        let slots = releases.offChannelSlots(of: .awdl(offSlots: 2, windows: false), delayNanos: 1_000_000)
        for (inside, _) in slots {
            #expect(inside.allSatisfy { releases.bytes($0) == 0 }, "the channel is off in bins \(inside): \(inside.map(releases.bytes))")
        }
        let released = slots.filter { releases.bytes($0.end) > 0 }.count
        #expect(slots.count >= 2 && released >= slots.count - 1, "\(released) of \(slots.count) off-channel slots ended with a release")
    }

    @Test("radio links resolved by the model drive the emulator: clean at 1 m, lossy at the underground's max")
    func radioLinks() async throws {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let model = RadioModel()
        func lossRatio(_ env: String, _ d: Double, port: UInt16) async throws -> (Double, LinkCounters) {
            let link = try model.resolve(environment: env, profile: nil, distance: d, distanceLabel: String(Int(d)))
            let (client, server) = try await testbed.configure(link, seed: 11)
            // 1 500 datagrams over 3 s: long enough to span several shadowing correlation times.
            let seen = try await Traffic.udpBlast(from: client, to: server, port: port, count: 1_500, size: 200, interval: 2_000_000)
            return (Double(seen.filter { !$0 }.count) / Double(seen.count), try #require(testbed.counters()))
        }
        let (near, nearCounters) = try await lossRatio("free-field", 1, port: 7010)
        #expect(near == 0, "free field at 1 m: \(nearCounters)")
        // Underground at its "max" (46 m): median SNR 13.2 dB, 5.2 dB above MCS 0; with
        // shadowing and crowds blocking the path the model expects ~23 % loss.
        let farthest = RadioModel.maxDistance(.underground)
        let (far, farCounters) = try await lossRatio("underground", farthest, port: 7011)
        #expect(far > 0.05 && far < 0.9, "underground at \(farthest) m lost \(far * 100) %")
        #expect(farCounters.dropCauses["loss"]! > 0 && farCounters.packetsUp == 1_503, "\(farCounters)")
    }

    @Test("namespaces and devices are gone after a normal end")
    func cleanupAfterShutdown() async throws {
        let testbed = try EmulatedTestbed()
        let (c, s) = try #require(testbed.namespaces)
        #expect(Self.existingNamespaces().contains(c.name) && Self.existingNamespaces().contains(s.name))
        await testbed.shutdown()
        #expect(!Self.existingNamespaces().contains(c.name))
        #expect(!Self.existingNamespaces().contains(s.name))
        #expect(testbed.namespaces == nil)
        // The TUN devices lived only inside the namespaces: the host never had one.
        #expect(!Self.hostInterfaces().contains(NamespacePair.deviceName))
    }

    @Test("a killed owner's namespaces are removed: by the reaper, and by removeLeftovers after SIGINT")
    func cleanupAfterInterrupt() async throws {
        // 1. The reaper: this process "dies" (the reaper's pipe closes) without removing anything.
        let testbed = try EmulatedTestbed()
        let (c, s) = try #require(testbed.namespaces)
        testbed.simulateOwnerDeath()
        let deadline = MonotonicClock.now() + 5_000_000_000
        while Self.existingNamespaces().contains(c.name) || Self.existingNamespaces().contains(s.name) {
            #expect(MonotonicClock.now() < deadline, "reaper did not remove \(c) and \(s)")
            if MonotonicClock.now() >= deadline { break }
            Traffic.sleepUntil(MonotonicClock.now() + 50_000_000)
        }

        // 2. A run interrupted by SIGINT whose reaper could not act: a child process owns
        // a pair; once SIGINT ends it, the next start's removeLeftovers deletes the pair.
        // The test runner may ignore or block SIGINT and children inherit that, so the child restores
        // the default action and unblocks it before saying it is ready.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        child.arguments = [
            "python3", "-c",
            "import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); print('ready', flush=True); time.sleep(30)",
        ]
        let out = Pipe()
        child.standardOutput = out
        try child.run()
        _ = out.fileHandleForReading.availableData  // "ready"
        let pair = try NamespacePair(mtu: 1_500, ownerPid: child.processIdentifier, reaper: false)
        let names = [pair.client.name, pair.server.name]
        pair.simulateOwnerDeath()
        #expect(!EmulatedTestbed.leftovers().contains(names[0]), "a live owner's namespaces are not leftovers")
        kill(child.processIdentifier, SIGINT)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGINT)
        #expect(Set(EmulatedTestbed.leftovers()).isSuperset(of: names))
        let removed = EmulatedTestbed.removeLeftovers()
        #expect(Set(removed).isSuperset(of: names))
        #expect(Self.existingNamespaces().isDisjoint(with: names))
    }

    static func existingNamespaces() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? [])
    }

    static func hostInterfaces() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? [])
    }
}
