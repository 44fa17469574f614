import PeerBenchPlugin
import PeerBenchTestbed

extension Record {
    /// Fills `link.radio_on_fraction` and `link.energy_mj` for a cell that ran `seconds`
    /// over `link` in `mode`, from the emulator's counters. Left null without counters
    /// (no emulator: loopback, a remote peer) or without a rate to time frames by.
    mutating func fillEnergy(
        link: ResolvedLink, mode: PerformanceMode, counters: LinkCounters?, seconds: Double,
        model: EnergyModel = .standard
    ) {
        guard let c = counters, seconds > 0, let rate = link.phyRateMbps ?? link.rateMbps, rate > 0 else { return }
        let duty = (link.channel as? any PerformanceModeAdaptable)?.onChannelFraction ?? EnergyModel.nominalDutyCycle(mode)
        let client = model.estimate(seconds: seconds, dutyCycle: duty, airRateMbps: rate, sentBytes: c.bytesUp, receivedBytes: c.bytesDown)
        let server = model.estimate(seconds: seconds, dutyCycle: duty, airRateMbps: rate, sentBytes: c.bytesDown, receivedBytes: c.bytesUp)
        func r(_ x: Double, _ digits: Double) -> Double { (x * digits).rounded() / digits }
        self.link.radioOnFraction = EndPair(client: r(client.radioOnFraction, 1e4), server: r(server.radioOnFraction, 1e4))
        self.link.energyMj = EndPair(client: r(client.energyMj, 1e3), server: r(server.energyMj, 1e3))
    }
}
