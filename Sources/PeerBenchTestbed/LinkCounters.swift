import PeerBenchPlugin

/// Counters the emulator keeps per cell. Up = client to server. IP packets, so a
/// fragmented datagram counts once per fragment.
public struct LinkCounters: Sendable, Equatable {
    public var packetsUp = 0, packetsDown = 0
    public var bytesUp = 0, bytesDown = 0
    public var dropsUp = 0, dropsDown = 0
    /// Drops by cause (`queue`, `loss`, `off_channel`, ...) for `extra.link_drops`.
    public var dropCauses: [String: Int] = [:]
    /// What the emulator delivered over time (for scenario figures); nil without an emulator.
    public var delivery: LinkDeliverySeries?
    /// Aggregates, MPDUs and window waits on a radio link's MAC; nil elsewhere.
    public var air: LinkAirCounters?
    public init() {}
}
