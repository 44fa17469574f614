import PeerBenchPlugin
import PeerBenchWorkloads

/// The plugin's application protocol on top of QUIC streams (docs/protocol/quic.md).
///
/// Every stream carries a sequence of frames: a 1-byte type (`MessageType`, the
/// numbering the byte-stream frames of tcp and tls share), a 4-byte big-endian body
/// length, then the body. Bulk bodies are counted, never stored, so a receiver's memory
/// does not grow with the message size. The types quic uses are those `isQUIC` names; any other
/// is refused as unknown.
extension MessageType {
    var isQUIC: Bool {
        switch self {
        case .hello, .probe, .echo, .resume, .resumed, .probeHello, .data, .end, .report, .series, .pull, .request, .frame, .framePull,
            .frameArrivals, .flow, .flowReport:
            true
        case .resumable, .session, .goodbye, .pushed, .response, .frameEnd, .frameReport, .framesSent: false
        }
    }
}

/// Application error codes used in CONNECTION_CLOSE (application variant).
enum ApplicationError {
    /// The session finished normally.
    static let noError: UInt64 = 0
    /// The peer broke the framing rules.
    static let protocolViolation: UInt64 = 1
    /// The client gave up (cell deadline, cancellation) before the session ended.
    static let aborted: UInt64 = 2
    /// The server refused a connection that is not the cell's client (no HELLO first,
    /// or a HELLO with another cell's token).
    static let notThisCell: UInt64 = 3
}

/// Body of `done`: what the client handed to QUIC in the bulk phase, and (32-byte form
/// only, sent to a server whose hello offers it) flags: bit 0 asks for the span.
struct DoneBody: Equatable, Sendable {
    var messages: UInt64
    var bytes: UInt64
    var streams: UInt64
    /// nil: the 24-byte DONE of a client that asks for nothing.
    var flags: UInt64? = nil
    static let flagReceiverSpan: UInt64 = 1
    var wantsSpan: Bool { (flags ?? 0) & Self.flagReceiverSpan != 0 }
}

/// Body of `report`: what the server received in the bulk phase.
struct ReportBody: Equatable, Sendable {
    var messages: UInt64
    var bytes: UInt64
    var streams: UInt64
    /// Server-side time from the first to the last bulk byte, nanoseconds (informational).
    var receiveNanos: UInt64
    /// 40-byte form only (answer to a DONE that asked): from the arrival of the first
    /// whole bulk message to that of the last, nanoseconds (the field study's span).
    var spanNanos: UInt64? = nil
}

/// Body of `resumed`: the whole messages and their bytes the server has counted for the
/// cell's session over all its connections; the client sends on from `messages`.
struct ResumedBody: Equatable, Sendable {
    var messages: UInt64
    var bytes: UInt64
}

/// Body of `frame_pull`: what an isochronous down flow sends.
struct FramePullBody: Equatable, Sendable {
    var frames: UInt64
    var frameBytes: UInt64
    var periodNanos: UInt64
}

/// Body of `flow_report`: the whole messages and body bytes a flow stream delivered, and
/// when its first and last body byte arrived on the server's monotonic clock (0, 0 when
/// none did): only comparable with the other flow streams' of the same connection.
struct FlowReportBody: Equatable, Sendable {
    var messages: UInt64
    var bytes: UInt64
    var firstByteNanos: UInt64
    var lastByteNanos: UInt64
}

/// A control frame, decoded.
enum ControlFrame: Equatable {
    /// Request stream: the response's size in bytes.
    case request(UInt64)
    /// Frame stream: the next DATA is this frame (its sequence number).
    case frame(UInt64)
    case framePull(FramePullBody)
    /// Arrival times of the frames of a frame-up stream, in sequence order (server's clock).
    case frameArrivals([UInt64])
    /// Pull stream: messages and their size.
    case pull(count: UInt64, size: UInt64)
    /// Flow stream: the flow's index (0 ..< `WorkloadSpec.Limits.streams`).
    case flow(UInt64)
    case flowReport(FlowReportBody)
    case ping(UInt64)
    case pong(UInt64)
    case done(DoneBody)
    case report(ReportBody)
    case hello(CellToken)
    case probeHello(CellToken)
    case resume(CellToken)
    case resumed(ResumedBody)
    /// nil: the server received no bulk byte (zero entries on the wire).
    case series(BulkSeries?)
}

/// The SERIES body: u64 interval_ns, u32 n, then n u64 byte counts.
enum SeriesBody {
    /// Intervals a SERIES carries at most (5 minutes at 100 ms, then coarser), as TCP's REPORT.
    static let maxIntervals = 3_000
    static let fixedSize = 12
    static let maxSize = fixedSize + 8 * maxIntervals
}

/// The FRAME_ARRIVALS body: n x u64, at most one per frame a flow may have.
enum FrameArrivalsBody {
    static let maxSize = 8 * WorkloadSpec.Limits.frames
}

/// Frame encoding (the bytes one frame occupies on the wire).
enum FrameEncoder {
    static let headerSize = 5

    static func header(_ type: MessageType, length: UInt32) -> [UInt8] {
        [type.rawValue, UInt8(length >> 24), UInt8((length >> 16) & 0xff), UInt8((length >> 8) & 0xff), UInt8(length & 0xff)]
    }

    static func encode(_ frame: ControlFrame) -> [UInt8] {
        switch frame {
        case .ping(let seq): return header(.probe, length: 8) + be(seq)
        case .pong(let seq): return header(.echo, length: 8) + be(seq)
        case .done(let d):
            guard let flags = d.flags else { return header(.end, length: 24) + be(d.messages) + be(d.bytes) + be(d.streams) }
            return header(.end, length: 32) + be(d.messages) + be(d.bytes) + be(d.streams) + be(flags)
        case .report(let r):
            let fixed = be(r.messages) + be(r.bytes) + be(r.streams) + be(r.receiveNanos)
            guard let span = r.spanNanos else { return header(.report, length: 32) + fixed }
            return header(.report, length: 40) + fixed + be(span)
        case .hello(let token): return header(.hello, length: UInt32(CellToken.length)) + token.bytes
        case .probeHello(let token): return header(.probeHello, length: UInt32(CellToken.length)) + token.bytes
        case .resume(let token): return header(.resume, length: UInt32(CellToken.length)) + token.bytes
        case .resumed(let r): return header(.resumed, length: 16) + be(r.messages) + be(r.bytes)
        case .series(let series):
            let entries = series?.bytes ?? []
            var out = header(.series, length: UInt32(SeriesBody.fixedSize + 8 * entries.count))
            out += be(series?.intervalNanos ?? 0)
            out += [
                UInt8(entries.count >> 24 & 0xff), UInt8(entries.count >> 16 & 0xff), UInt8(entries.count >> 8 & 0xff), UInt8(entries.count & 0xff),
            ]
            for e in entries { out += be(UInt64(e)) }
            return out
        case .request(let bytes): return header(.request, length: 8) + be(bytes)
        case .frame(let seq): return header(.frame, length: 8) + be(seq)
        case .framePull(let p): return header(.framePull, length: 24) + be(p.frames) + be(p.frameBytes) + be(p.periodNanos)
        case .frameArrivals(let at):
            var out = header(.frameArrivals, length: UInt32(8 * at.count))
            out.reserveCapacity(out.count + 8 * at.count)
            for t in at { out += be(t) }
            return out
        case .pull(let count, let size): return header(.pull, length: 16) + be(count) + be(size)
        case .flow(let index): return header(.flow, length: 8) + be(index)
        case .flowReport(let r): return header(.flowReport, length: 32) + be(r.messages) + be(r.bytes) + be(r.firstByteNanos) + be(r.lastByteNanos)
        }
    }

    static func be(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * UInt64($0))) & 0xff) } }
}

/// A framing error: the peer sent something the protocol does not allow.
struct FramingError: Error, CustomStringConvertible {
    var description: String
}

/// Incremental frame parser for one stream. Feed it bytes as QUIC delivers them
/// (in order); it reports control frames whole and bulk bodies as byte counts.
struct FrameParser {
    /// Bodies of control frames are tiny; anything bigger is a protocol violation,
    /// which bounds what a peer can make us hold.
    static let maxControlBody = 64

    private var header: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
    private var headerFilled = 0
    private var type: MessageType = .data
    private var bodyRemaining: UInt32 = 0
    private var inBody = false
    private var control: [UInt8] = []
    /// Only a client parses SERIES (the server's bulk series, up to `SeriesBody.maxSize`
    /// bytes) and FRAME_ARRIVALS (up to `FrameArrivalsBody.maxSize`); a server rejects
    /// both at their header, so it never holds more than 64 bytes.
    private let acceptsSeries: Bool

    init(acceptsSeries: Bool = false) {
        self.acceptsSeries = acceptsSeries
        control.reserveCapacity(Self.maxControlBody)
    }

    /// True between frames (a stream may end only there).
    var atFrameBoundary: Bool { headerFilled == 0 && !inBody }

    /// Consumes `bytes`. `onData(n, complete)` is called for every piece of a `data`
    /// body (`complete` on its last byte); `onControl` for each whole control frame.
    mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        onData: (Int, Bool) throws -> Void,
        onControl: (ControlFrame) throws -> Void
    ) throws {
        var i = 0
        let n = bytes.count
        while i < n {
            if !inBody {
                let b = bytes[i]
                i += 1
                switch headerFilled {
                case 0: header.0 = b
                case 1: header.1 = b
                case 2: header.2 = b
                case 3: header.3 = b
                default: header.4 = b
                }
                headerFilled += 1
                if headerFilled == FrameEncoder.headerSize { try startBody(onData: onData, onControl: onControl) }
                continue
            }
            let take = min(Int(bodyRemaining), n - i)
            bodyRemaining -= UInt32(take)
            if type == .data {
                try onData(take, bodyRemaining == 0)
            } else {
                control.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)]))
            }
            i += take
            if bodyRemaining == 0 { try endBody(onControl: onControl) }
        }
    }

    private mutating func startBody(onData: (Int, Bool) throws -> Void, onControl: (ControlFrame) throws -> Void) throws {
        headerFilled = 0
        guard let t = MessageType(rawValue: header.0), t.isQUIC else {
            throw FramingError(description: "unknown frame type 0x\(String(header.0, radix: 16))")
        }
        let length = UInt32(header.1) << 24 | UInt32(header.2) << 16 | UInt32(header.3) << 8 | UInt32(header.4)
        type = t
        bodyRemaining = length
        if t == .series {
            guard acceptsSeries else { throw FramingError(description: "SERIES frame from a client (server-only)") }
            guard length >= SeriesBody.fixedSize, length <= SeriesBody.maxSize, (length - UInt32(SeriesBody.fixedSize)) % 8 == 0 else {
                throw FramingError(description: "SERIES frame has a \(length)-byte body; expected 12 + 8 x n with n <= \(SeriesBody.maxIntervals)")
            }
            control.removeAll(keepingCapacity: true)
        } else if t == .frameArrivals {
            guard acceptsSeries else { throw FramingError(description: "FRAME_ARRIVALS frame from a client (server-only)") }
            guard length <= FrameArrivalsBody.maxSize, length % 8 == 0 else {
                throw FramingError(
                    description: "FRAME_ARRIVALS frame has a \(length)-byte body; expected 8 x n with n <= \(WorkloadSpec.Limits.frames)")
            }
            control.removeAll(keepingCapacity: true)
            if length == 0 {
                // No frame arrived: the frame is whole at its header.
                try onControl(.frameArrivals([]))
                return
            }
        } else if t != .data {
            // DONE and REPORT have a longer form that carries the span request and answer.
            let expected: [UInt32] =
                switch t {
                case .probe, .echo, .request, .frame, .flow: [8]
                case .end: [24, 32]
                case .report: [32, 40]
                case .resumed, .pull: [16]
                case .framePull: [24]
                default: [32]
                }
            guard expected.contains(length) else {
                throw FramingError(
                    description:
                        "frame type 0x\(String(t.rawValue, radix: 16)) has a \(length)-byte body; expected \(expected.map(String.init).joined(separator: " or "))"
                )
            }
            control.removeAll(keepingCapacity: true)
        }
        inBody = true
        if length == 0 {
            // An empty message still counts as one message.
            try onData(0, true)
            inBody = false
        }
    }

    private mutating func endBody(onControl: (ControlFrame) throws -> Void) throws {
        inBody = false
        guard type != .data else { return }
        func u64(_ at: Int) -> UInt64 { control[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
        switch type {
        case .probe: try onControl(.ping(u64(0)))
        case .echo: try onControl(.pong(u64(0)))
        case .end: try onControl(.done(DoneBody(messages: u64(0), bytes: u64(8), streams: u64(16), flags: control.count == 32 ? u64(24) : nil)))
        case .report:
            try onControl(
                .report(
                    ReportBody(
                        messages: u64(0), bytes: u64(8), streams: u64(16), receiveNanos: u64(24),
                        spanNanos: control.count == 40 ? u64(32) : nil)))
        case .hello: try onControl(.hello(CellToken(bytes: Array(control))))
        case .probeHello: try onControl(.probeHello(CellToken(bytes: Array(control))))
        case .resume: try onControl(.resume(CellToken(bytes: Array(control))))
        case .resumed: try onControl(.resumed(ResumedBody(messages: u64(0), bytes: u64(8))))
        case .request: try onControl(.request(u64(0)))
        case .frame: try onControl(.frame(u64(0)))
        case .framePull: try onControl(.framePull(FramePullBody(frames: u64(0), frameBytes: u64(8), periodNanos: u64(16))))
        case .pull: try onControl(.pull(count: u64(0), size: u64(8)))
        case .flow: try onControl(.flow(u64(0)))
        case .flowReport: try onControl(.flowReport(FlowReportBody(messages: u64(0), bytes: u64(8), firstByteNanos: u64(16), lastByteNanos: u64(24))))
        case .frameArrivals: try onControl(.frameArrivals((0..<control.count / 8).map { u64(8 * $0) }))
        case .series:
            let interval = u64(0)
            let n = Int(control[8]) << 24 | Int(control[9]) << 16 | Int(control[10]) << 8 | Int(control[11])
            guard control.count == SeriesBody.fixedSize + 8 * n, n == 0 || interval > 0 else {
                throw FramingError(description: "SERIES frame: \(n) entries do not match its \(control.count)-byte body, or a zero interval")
            }
            let entries = (0..<n).map { Int(clamping: u64(SeriesBody.fixedSize + 8 * $0)) }
            try onControl(.series(n == 0 ? nil : BulkSeries(intervalNanos: interval, bytes: entries)))
        // DATA is counted, not decoded; the others are not quic's (refused at their header).
        case .data, .resumable, .session, .goodbye, .pushed, .response, .frameEnd, .frameReport, .framesSent: break
        }
    }
}
