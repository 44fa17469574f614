import PeerBenchCore
import PeerBenchPlugin
import Testing

@testable import LinkEmulation

/// AWDL's availability windows in the emulator (docs/LINK-MODEL.md, "Availability
/// windows"): a frame that finds the transmitter idle leaves at the start of the next
/// 16 TU window; the echo, generated just after its probe arrived, has missed that
/// window's start and waits for the next one. So a lone ping-pong over a 1 ms one-way
/// link takes between one and two windows plus the 2 ms of delay, 1.5 windows on average.
@Suite(.serialized)
struct AvailabilityWindowTests {
    let window = Double(ChannelSchedule.availabilityWindowNanos) / 1e6  // 16.384 ms

    /// The probes' round trips (ms) and what the emulator planned for them.
    func pings(_ schedule: ChannelSchedule, seed: UInt64, port: UInt16) async throws -> (rtts: [Double], planned: PlannedReleases) {
        let testbed = try EmulatedTestbed()
        defer { testbed.shutdownNow() }
        let (client, server) = try testbed.configure(
            EmulatorParameters(delayNanos: 1_000_000, schedule: schedule, mtu: RadioModel.awdlMTU), seed: seed)
        let ready = Flag()
        async let echoed = Traffic.udpEcho(server, port: port, ready: ready)
        try ready.wait()
        // Sent 37 ms apart (longer than any round trip here, so each is sent on schedule,
        // not just after the last echo): the probes sweep the phases of the 16.4 ms window.
        let pings = try await Traffic.udpPings(from: client, to: server, port: port, count: 120, gapNanos: 37_000_000)
        _ = try await echoed
        return (pings.map { Double($0.1) / 1e6 }, try PlannedReleases(testbed.counters()))
    }

    func pingMillis(_ schedule: ChannelSchedule, seed: UInt64, port: UInt16) async throws -> [Double] {
        try await pings(schedule, seed: seed, port: port).rtts
    }

    /// The 10 ms bins that hold no window start (plus the 1 ms delay and up to 1 ms of
    /// air time): about 4 in 10 of those while the probes ran.
    func binsWithoutAWindowStart(_ planned: PlannedReleases) -> [Int] {
        planned.binsWithoutAWindowStart(windowNanos: ChannelSchedule.availabilityWindowNanos, delayNanos: 1_000_000, spreadNanos: 1_000_000)
    }

    @Test("a lone ping-pong waits for two window starts: RTT between 1 and 2 windows (+2 ms delay), 1.5 on average")
    func lonePingsWaitForWindows() async throws {
        let (rtts, planned) = try await pings(.bulk, seed: 3, port: 7101)
        try #require(rtts.count >= 110, "\(rtts.count) of 120 answered")
        let sorted = rtts.sorted(), mean = rtts.reduce(0, +) / Double(rtts.count)
        // Never faster than one window: the echo cannot catch the window its probe came in.
        #expect(sorted.first! >= window, "min \(sorted.first!) ms")
        // What the emulator planned: every frame leaves at a window's start, so nothing is
        // released in a bin that holds none (`PlannedReleases`; the probes' phases sweep
        // the window, so a link that sent them at once would fill those bins too).
        let empty = binsWithoutAWindowStart(planned)
        #expect(
            empty.count >= 20 && empty.allSatisfy { planned.bytes($0) == 0 }, "released off a window start: \(empty.filter { planned.bytes($0) > 0 })"
        )
        // Uniform phase: mean 1.5 windows + 2 ms = 26.6 ms, at least 23.6 (the probes'
        // phases not being perfectly uniform over 120 probes). A loaded host adds its
        // wake-ups: 29.9 and 37.3 ms with the timing suites four at a time beside other
        // work (issue 42); the model's own bound is 2 windows + 2 ms (34.8), so a third
        // window would show as 51 ms; 45 leaves the host 10 ms.
        #expect(mean > 1.5 * window + 2 - 3 && mean < 2 * window + 12, "mean \(mean) ms")
    }

    @Test("realtime has no windows: the same pings take the plain 2 ms round trip")
    func realtimeHasNoWindows() async throws {
        let (rtts, planned) = try await pings(.realtime, seed: 3, port: 7102)
        let p50 = rtts.sorted()[rtts.count / 2]
        // Under one window (16.4 ms), whatever a loaded host adds (p50 < 5 until issue 42).
        #expect(p50 < 10, "p50 \(p50) ms")
        // What the emulator planned: releases where a windowed link would have none.
        let empty = binsWithoutAWindowStart(planned)
        #expect(empty.filter { planned.bytes($0) > 0 }.count >= 10, "no window waits: \(empty.count) bins without a window start")
    }

    @Test("missed windows: at 0.5 each wait lasts one window more on average, so the round trip grows by about two windows")
    func missedWindowsAddWaits() async throws {
        let clean = try await pingMillis(.bulk, seed: 4, port: 7103)
        let missing = try await pingMillis(.awdl(offSlots: 0, windowMiss: 0.5), seed: 4, port: 7104)
        let a = clean.reduce(0, +) / Double(clean.count), b = missing.reduce(0, +) / Double(missing.count)
        // Expected: +2 windows (32.8 ms); at least one window is a margin of 16 ms for the
        // geometric draws of 120 probes.
        #expect(b - a > window, "mean \(a) ms -> \(b) ms")
        #expect(b - a < 4 * window, "mean \(a) ms -> \(b) ms")
    }
}
