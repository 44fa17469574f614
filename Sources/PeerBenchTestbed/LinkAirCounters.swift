import PeerBenchPlugin

/// What one direction of an emulated radio link put on the air: aggregates (PPDUs,
/// each paying channel access, preamble and block ack) and MPDUs (one per IP packet
/// or fragment), and how long frames that found the transmitter idle waited for an
/// availability window. A link-bound cell sends full aggregates back to back; a
/// stack-bound one sends few MPDUs per aggregate, or waits for windows.
public struct AirCounters: Sendable, Equatable {
    public var aggregates = 0
    public var mpdus = 0
    public var windowWaitNanos: UInt64 = 0
    public init(aggregates: Int = 0, mpdus: Int = 0, windowWaitNanos: UInt64 = 0) {
        self.aggregates = aggregates
        self.mpdus = mpdus
        self.windowWaitNanos = windowWaitNanos
    }
}

/// `AirCounters` per direction (up = client to server): the record's `extra.link_air`.
public struct LinkAirCounters: Sendable, Equatable {
    public var up: AirCounters
    public var down: AirCounters
    public init(up: AirCounters, down: AirCounters) {
        self.up = up
        self.down = down
    }
}
