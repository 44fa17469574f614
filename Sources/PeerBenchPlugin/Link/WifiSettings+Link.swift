/// The emulator's channel model, as far as the performance mode changes it. The link
/// emulation module's channel conforms; the core only sees this protocol.
public protocol PerformanceModeAdaptable: Sendable {
    /// This channel in `mode`, and the factor by which the link's long-run rate changes
    /// (the share of time on the peer-to-peer channel, new over old).
    func adapted(to mode: PerformanceMode) -> (channel: any Sendable, rateFactor: Double)
    /// The share of time the radio spends on the peer-to-peer channel (its duty cycle,
    /// for the energy model).
    var onChannelFraction: Double { get }
}

extension ResolvedLink {
    /// The link a cell with `wifi` runs over: in `realtime` the emulator's channel keeps
    /// no off-channel slots, so the long-run rate rises by the time they took. Links
    /// without such a channel (fixed links, `--link none`) are unchanged.
    public func adapted(to wifi: WifiSettings) -> ResolvedLink {
        guard let c = channel as? any PerformanceModeAdaptable else { return self }
        let (adapted, factor) = c.adapted(to: wifi.performanceMode)
        var link = self
        link.channel = adapted
        if factor != 1, let r = rateMbps { link.rateMbps = (r * factor * 10).rounded() / 10 }
        return link
    }
}
