import PeerBenchPlugin

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
