#if canImport(Glibc)
    import Glibc
#endif

/// One interface at one moment: its counters and, on Wi-Fi, its peer station.
public struct InterfaceSnapshot: Sendable, Codable, Equatable {
    public var name: String
    /// nil when the kernel has no such interface (in this network namespace).
    public var counters: InterfaceCounters?
    /// nil when the interface is not wireless or nl80211 is absent (no cfg80211).
    public var station: WirelessStation?

    public init(name: String, counters: InterfaceCounters?, station: WirelessStation?) {
        self.name = name
        self.counters = counters
        self.station = station
    }
}
