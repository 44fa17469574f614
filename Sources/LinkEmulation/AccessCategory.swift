import CLinkEmulation
public import PeerBenchPlugin
public import PeerBenchSystem

/// The four WMM / 802.11 EDCA access categories, in increasing priority. The emulator
/// puts each packet in the queue of its category, read from the DSCP in its IP header,
/// so the class a socket was marked with (`Socket.setServiceClass`) is what the
/// emulated radio obeys, as on a real Wi-Fi link.
public enum AccessCategory: Int, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case background = 0
    case bestEffort = 1
    case video = 2
    case voice = 3

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The category a service class's traffic lands in (IEEE 802.11-2020 Table 10-1,
    /// user priority to access category).
    public init(_ serviceClass: ServiceClass) {
        switch serviceClass {
        case .background: self = .background
        case .bestEffort: self = .bestEffort
        case .interactiveVideo: self = .video
        case .interactiveVoice: self = .voice
        }
    }

    /// The category of a DSCP after RFC 8325's DSCP-to-user-priority mapping.
    public init(dscp: UInt8) { self.init(ServiceClass(dscp: dscp)) }

    public var description: String { ["AC_BK", "AC_BE", "AC_VI", "AC_VO"][rawValue] }

    /// The category of the IP packet in a TUN frame (vnet header, then the packet):
    /// IPv4's TOS byte or IPv6's traffic class; anything else is best effort.
    /// Bytes of the virtio-net header in front of each TUN frame.
    static let vnetHeaderBytes = Int(PBL_VNET_HDR_LEN)

    @inline(__always)
    static func of(frame: UnsafeRawPointer, length: Int) -> AccessCategory {
        let h = vnetHeaderBytes
        guard length >= h + 2 else { return .bestEffort }
        let b0 = frame.load(fromByteOffset: h, as: UInt8.self), b1 = frame.load(fromByteOffset: h + 1, as: UInt8.self)
        let trafficClass: UInt8
        switch b0 >> 4 {
        case 4: trafficClass = b1
        case 6: trafficClass = (b0 & 0x0f) << 4 | b1 >> 4
        default: return .bestEffort
        }
        let dscp = trafficClass >> 2
        // The common case, DF (0), without the table.
        return dscp == 0 ? .bestEffort : AccessCategory(dscp: dscp)
    }
}
