import PeerBenchTestbed
import Testing

@testable import PeerBenchCore
@testable import PeerBenchPlugin

/// The radio energy estimate: the formula with real numbers, the duty cycle of each
/// performance mode, and which end pays for which direction.
@Suite struct EnergyModelTests {
    @Test func bulkDozesThroughTheOffChannelSlotsRealtimeDoesNot() {
        let m = EnergyModel.standard
        // 10 s, 100 Mbit/s on the air, 12.5 MB sent: 1 s transmitting.
        let bulk = m.estimate(
            seconds: 10, dutyCycle: EnergyModel.nominalDutyCycle(.bulk), airRateMbps: 100,
            sentBytes: 12_500_000, receivedBytes: 0)
        // awake 8.75 s: 1 s tx (1298.7 mW) + 7.75 s listening (303.4 mW) + 1.25 s doze (7.6 mW)
        #expect(bulk.radioOnFraction == 0.875)
        #expect(abs(bulk.energyMj - 3_659.55) < 1e-6)
        let realtime = m.estimate(
            seconds: 10, dutyCycle: EnergyModel.nominalDutyCycle(.realtime), airRateMbps: 100,
            sentBytes: 12_500_000, receivedBytes: 0)
        #expect(realtime.radioOnFraction == 1)
        // awake 10 s: 1 s tx + 9 s listening, no doze
        #expect(abs(realtime.energyMj - 4_029.3) < 1e-6)
    }

    @Test func airTimeBeyondTheDutyCycleKeepsTheRadioAwake() {
        // 9.5 s of frames at a 0.875 duty cycle: awake for all of them.
        let e = EnergyModel.standard.estimate(seconds: 10, dutyCycle: 0.875, airRateMbps: 8, sentBytes: 5_000_000, receivedBytes: 4_500_000)
        #expect(e.radioOnFraction == 0.95)
        #expect(abs(e.energyMj - (1_298.7 * 5 + 462.5 * 4.5 + 7.6 * 0.5)) < 1e-6)
    }

    @Test func theRecordChargesEachEndForWhatItSentAndReceived() throws {
        let m = try parse(matrixText())
        let cell = m.cells()[0]
        var link = try FakeLinkModel().resolve(cell.environment, cell.distance)
        link.phyRateMbps = 100
        var counters = LinkCounters()
        counters.bytesUp = 12_500_000
        var r = Record(
            runID: "r", cell: cell, link: link, linkMode: .emulated, counters: counters, status: .ok, error: nil,
            startedAt: .init(), totalSeconds: 10, measurement: nil)
        r.fillEnergy(link: link, mode: .bulk, counters: counters, seconds: 10)
        #expect(r.link.radioOnFraction == EndPair(client: 0.875, server: 0.875))
        // The client sent for 1 s (1298.7 mW), the server received for 1 s (462.5 mW).
        #expect(r.link.energyMj == EndPair(client: 3_659.55, server: 2_823.35))
        var none = r
        none.link.energyMj = nil
        none.fillEnergy(link: link, mode: .bulk, counters: nil, seconds: 10)
        #expect(none.link.energyMj == nil, "no emulator counters (loopback, remote): no estimate")
    }
}
