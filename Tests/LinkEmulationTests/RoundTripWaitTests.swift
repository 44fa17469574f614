import PeerBenchTestbed
import Testing

@testable import LinkEmulation
@testable import PeerBenchCore
@testable import PeerBenchPlugin

/// What AWDL's availability windows add to a round trip in the cost model (validate,
/// --dry-run, the ETA, the shard balance): a lone request and its answer wait 1.5
/// windows on average, which the estimates of radio-link matrices had left out.
@Suite
struct RoundTripWaitTests {
    let model = RadioModel()
    let window = Double(ChannelSchedule.availabilityWindowNanos) / 1e9

    @Test("the channel's wait: 1.5 windows, one more per missed window on average for each frame, none without windows")
    func channelWait() {
        var c = EmulatedChannel(schedule: .awdl(offSlots: 0))
        #expect(abs(c.roundTripWaitSeconds - 1.5 * window) < 1e-12)
        c.schedule = .awdl(offSlots: 0, windowMiss: 0.5)
        // Each frame misses m / (1 - m) = 1 window on average: 1.5 + 2.
        #expect(abs(c.roundTripWaitSeconds - 3.5 * window) < 1e-12)
        c.schedule = .realtime
        #expect(c.roundTripWaitSeconds == 0)
        #expect(EmulatedChannel().roundTripWaitSeconds == 0, "an always-on channel")
    }

    @Test("a built-in environment's round trip carries the windows; realtime and fixed links do not")
    func costModelRoundTrip() throws {
        let free = try model.resolve(environment: "free-field", profile: nil, distance: 10, distanceLabel: "10")
        let rtt = CellCost.roundTripSeconds(free)
        // Back to back (ping-pong, a handshake's flights), two windows each, not a lone one's 1.5.
        #expect(abs(rtt - (0.002 + CellCost.probeTurnaroundSeconds + 2 * window)) < 1e-12, "\(rtt)")
        let realtime = free.adapted(to: WifiSettings(performanceMode: .realtime, serviceClass: .bestEffort))
        #expect(abs(CellCost.roundTripSeconds(realtime) - (0.002 + CellCost.probeTurnaroundSeconds)) < 1e-12)
        // 20 ping-pong probes (matrices/quick.json) cost 20 such round trips: about 0.7 s, not 0.05.
        let probes = CellCost.probeSeconds(20, method: .pingPong, link: free)
        #expect(probes > 20 * 2 * window && probes < 20 * (2 * window + 0.003), "\(probes)")
        // A cell is estimated over the link its transport's mode makes: the ping-pong
        // probes and the handshake's round trips of a realtime transport pay no windows
        // (matrices/modes.json's realtime cells).
        let costs = CellCostModel(transports: [], rttProbes: 200, cellTimeoutSeconds: 60, registry: nil)
        func cell(_ mode: PerformanceMode) -> Cell {
            let t = TransportSpec(
                plugin: "tcp", label: "tcp", options: nil, effectiveOptions: .null, usesPayload: true, index: 0,
                wifi: WifiSettings(performanceMode: mode, serviceClass: .bestEffort))
            return Cell(
                id: "c", repetition: 1, seed: 1, transport: t, environment: EnvironmentSpec(name: "free-field", kind: .builtIn, json: .null),
                distance: .meters(10), payload: nil)
        }
        let bulkCell = costs.seconds(cell(.bulk), link: free), realtimeCell = costs.seconds(cell(.realtime), link: free)
        #expect(abs((bulkCell - realtimeCell) - (200 + CellCost.handshakeRoundTrips) * 2 * window) < 1e-9, "\(bulkCell) \(realtimeCell)")
        var lab = ResolvedLink(environment: "lab", distanceMeters: nil, distanceLabel: "1")
        lab.delayMs = 1
        #expect(abs(CellCost.roundTripSeconds(lab) - (0.002 + CellCost.probeTurnaroundSeconds)) < 1e-12)
    }
}
