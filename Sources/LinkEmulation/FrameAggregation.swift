/// The 802.11 MAC as the emulator charges it on radio links: frames leave in
/// aggregates (A-MPDUs), and air time is counted per aggregate and per frame, not
/// only per byte (docs/LINK-MODEL.md section 4).
///
/// One aggregate costs its category's channel access (AIFS plus the mean back-off),
/// the PHY preamble, a SIFS and the block ack [D: IEEE 802.11-2020, 5 GHz VHT timing];
/// each MPDU in it costs its own header, FCS, delimiter and padding at the PHY rate
/// [D]; an aggregate holds at most `maxMPDUs` MPDUs [D: the 64-frame block-ack window]
/// and lasts at most `maxPPDUNanos` on the air [D: aPPDUMaxTime]. Only frames that are
/// queued together, for the same peer and access category, when the transmitter wins
/// the medium go out together. So a burst of small messages costs a count of frames,
/// and what a transport makes of a burst (Nagle coalescing, one datagram per message,
/// QUIC packing frames) shows in round trips and small-transfer rates.
public struct FrameAggregation: Sendable, Equatable {
    /// MPDUs one aggregate may hold; 1 = no aggregation (every frame pays channel access).
    public var maxMPDUs: Int
    /// The longest PPDU, nanoseconds.
    public var maxPPDUNanos: UInt64
    /// Per-MPDU bytes beyond the IP packet, sent at the PHY rate.
    public var mpduOverheadBytes: Int
    /// Preamble, SIFS and block ack of one aggregate, nanoseconds (channel access is the
    /// category's own, `accessNanos`).
    public var exchangeNanos: UInt64

    public init(maxMPDUs: Int = 64, maxPPDUNanos: UInt64 = 5_484_000, mpduOverheadBytes: Int = 52, exchangeNanos: UInt64 = 100_000) {
        self.maxMPDUs = max(1, maxMPDUs)
        self.maxPPDUNanos = maxPPDUNanos
        self.mpduOverheadBytes = mpduOverheadBytes
        self.exchangeNanos = exchangeNanos
    }

    /// 802.11ac [D]: 64 MPDUs (the block-ack window), 5.484 ms (aPPDUMaxTime);
    /// 52 bytes a frame: QoS data header 26, LLC/SNAP 8, AWDL data header 8 [D: owl],
    /// FCS 4, A-MPDU delimiter 4, padding to 4 bytes 2 on average; 100 us an exchange:
    /// VHT preamble 40, SIFS 16, block ack 44 at a 24 Mbit/s basic rate.
    public static let vht = FrameAggregation()

    /// Every frame its own PPDU: what a MAC without aggregation would cost.
    public static let none = FrameAggregation(maxMPDUs: 1)

    /// The fixed cost of one aggregate of category `ac`: its channel access plus the exchange.
    public func fixedNanos(_ ac: AccessCategory) -> UInt64 {
        UInt64(EDCAParameters.default(ac).meanAccessMicros * 1_000) + exchangeNanos
    }

    /// Share of the PHY rate left for IP packets when every aggregate is full of
    /// `packetBytes`-byte packets (best effort): what a long bulk transfer can reach.
    public func efficiency(phyBitsPerSecond: Double, packetBytes: Int = 1_484) -> Double {
        let perFrame = Double(packetBytes + mpduOverheadBytes) * 8e9 / phyBitsPerSecond
        let fixed = Double(fixedNanos(.bestEffort))
        let byTime = max(1, Int((Double(maxPPDUNanos) - fixed) / perFrame))
        let frames = Double(min(maxMPDUs, byTime))
        let payload = frames * Double(packetBytes) * 8e9 / phyBitsPerSecond
        return payload / (fixed + frames * perFrame)
    }
}
