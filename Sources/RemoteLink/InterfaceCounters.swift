import PeerBenchPlugin

#if canImport(Glibc)
    import Glibc
#endif

/// An interface's counters as the kernel keeps them (`rtnl_link_stats64`, the numbers
/// `ip -s link` and /sys/class/net/IF/statistics show). They count every packet on the
/// interface, not only the cell's.
public struct InterfaceCounters: Sendable, Codable, Equatable {
    public var rxPackets: UInt64
    public var txPackets: UInt64
    public var rxBytes: UInt64
    public var txBytes: UInt64
    public var rxDropped: UInt64
    public var txDropped: UInt64
    public var rxErrors: UInt64
    public var txErrors: UInt64

    public init(
        rxPackets: UInt64, txPackets: UInt64, rxBytes: UInt64, txBytes: UInt64,
        rxDropped: UInt64, txDropped: UInt64, rxErrors: UInt64, txErrors: UInt64
    ) {
        self.rxPackets = rxPackets
        self.txPackets = txPackets
        self.rxBytes = rxBytes
        self.txBytes = txBytes
        self.rxDropped = rxDropped
        self.txDropped = txDropped
        self.rxErrors = rxErrors
        self.txErrors = txErrors
    }

    // snake_case on the wire, as in the records (SERVER_READY / SERVER_RESULT carry snapshots).
    enum CodingKeys: String, CodingKey {
        case rxPackets = "rx_packets", txPackets = "tx_packets", rxBytes = "rx_bytes", txBytes = "tx_bytes"
        case rxDropped = "rx_dropped", txDropped = "tx_dropped", rxErrors = "rx_errors", txErrors = "tx_errors"
    }
}
