/// The frames two emulated UWB radios exchange over UDP (docs/protocol/uwb.md,
/// "Ranging frames"). Single-sided two-way ranging: the initiator sends a poll each
/// round, the responder answers it; each poll reports the latest answered round's
/// result so the responder also gets distances; an end frame says the sender's
/// session was invalidated.
struct RangingFrame: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case poll = 1, response = 2, end = 3
    }

    /// "PBUR".
    static let magic: [UInt8] = [0x50, 0x42, 0x55, 0x52]
    static let version: UInt8 = 1
    static let headerSize = 44
    static let pollSize = 60, responseSize = 56, endSize = 44
    /// Report value meaning "no distance".
    static let noDistance: UInt32 = 0xFFFF_FFFF

    var kind: Kind
    /// The round (tick) index the frame belongs to.
    var round: UInt32
    var sender: [UInt8]
    var receiver: [UInt8]
    /// Poll: the initiator's send time; response: that time echoed (initiator clock, ns).
    var timestamp: UInt64 = 0
    /// Poll: the round whose result is reported. Response: the responder's turnaround, ns.
    var auxiliary: UInt32 = 0
    /// Poll only: the reported distance in millimetres, or `noDistance`.
    var reportMillimetres: UInt32 = noDistance

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 60)
        w.raw(Self.magic)
        w.u8(Self.version)
        w.u8(kind.rawValue)
        w.u16(0)
        w.u32(round)
        w.fixed(sender, 16)
        w.fixed(receiver, 16)
        switch kind {
        case .poll:
            w.u64(timestamp)
            w.u32(auxiliary)
            w.u32(reportMillimetres)
        case .response:
            w.u64(timestamp)
            w.u32(auxiliary)
        case .end:
            break
        }
        return w.bytes
    }

    /// Parses a datagram; nil for anything that is not a well-formed version 1 frame
    /// (stray traffic on the port is ignored, never trusted).
    init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard r.raw(4) == Self.magic, r.u8() == Self.version, let k = r.u8().flatMap(Kind.init(rawValue:)),
            r.u16() == 0, let round = r.u32(), let sender = r.raw(16), let receiver = r.raw(16)
        else { return nil }
        self.kind = k
        self.round = round
        self.sender = sender
        self.receiver = receiver
        switch k {
        case .poll:
            guard let t = r.u64(), let a = r.u32(), let d = r.u32(), r.remaining == 0 else { return nil }
            timestamp = t
            auxiliary = a
            reportMillimetres = d
        case .response:
            guard let t = r.u64(), let a = r.u32(), r.remaining == 0 else { return nil }
            timestamp = t
            auxiliary = a
        case .end:
            guard r.remaining == 0 else { return nil }
        }
    }

    init(kind: Kind, round: UInt32, sender: [UInt8], receiver: [UInt8]) {
        self.kind = kind
        self.round = round
        self.sender = sender
        self.receiver = receiver
    }
}
