import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The server's side of the workload streams of one connection (docs/protocol/quic.md,
/// section 4c): request streams answered with their response, frame-up streams whose
/// arrivals go back in FRAME_ARRIVALS, frame-down streams sent on the schedule their
/// FRAME_PULL asks for, and pull streams that send a bulk download.
///
/// A stream's first frame says what it is (DATA: a bulk stream of the upload, left to
/// the session). Every number a client sends is checked against `WorkloadSpec.Limits`
/// (and the pull limits below) before anything is allocated or sent; anything else is
/// a `FramingError`, which closes the connection as a protocol violation.
final class ServerWorkloadStreams {
    /// A PULL asks for at most this many messages of at most `maxPullSize` bytes (tcp's limits).
    static let maxPullCount: UInt64 = 100_000_000
    static let maxPullSize: UInt64 = 64 << 20
    /// Frame streams a connection may open over its life: each holds a schedule or up to
    /// 100 000 arrival times, so they are few (bidir uses 2).
    static let maxScheduledStreams = 4
    /// Pull streams a connection may open (one per parallel flow), and the distinct
    /// message sizes among them: pulls of one size share one message block, so the
    /// memory they hold is at most `maxPullSizes` x `maxPullSize`.
    static let maxPullStreams = WorkloadSpec.Limits.streams
    static let maxPullSizes = 4
    /// Flow streams (bulk up over parallel streams) a connection may open: a few counters each.
    static let maxFlowStreams = WorkloadSpec.Limits.streams
    /// Answers held back until the connection proves to be the cell's client (its HELLO
    /// may arrive after a workload stream when a packet is lost); bounded by the stream limit.
    static let maxDeferred = 256

    private enum Role {
        /// The upload's bulk stream (its first frame was DATA): the session counts it.
        case bulk
        case request(RequestState)
        case frameUp(FrameUpState)
        /// FRAME_PULL read: nothing more may come on the client's direction.
        case frameDown
        /// PULL read: likewise.
        case pull
        /// FLOW read: DATA frames follow, counted per stream; FLOW_REPORT answers the FIN.
        case flow(FlowState)
        /// A frame-up or flow stream whose report is queued: nothing more may come.
        case answered
    }

    private struct FlowState {
        var messages: UInt64 = 0
        var bytes: UInt64 = 0
        var firstByteAt: UInt64 = 0
        var lastByteAt: UInt64 = 0
    }

    private struct RequestState {
        var responseBytes: UInt64
        var dataComplete = false
        var requestBytes: UInt64 = 0
    }

    private struct FrameUpState {
        /// The sequence number the next FRAME must carry (frames arrive in order on one stream).
        var expected: UInt64 = 0
        /// A FRAME was read and its DATA has not completed yet.
        var inFrame = false
        var frameBytes: UInt64 = 0
        var arrivals: [UInt64] = []
    }

    /// A frame-down flow: its stream, its frames' size and their `FrameTimetable`.
    private struct DownSchedule {
        var stream: Int64
        var frameBytes: Int
        var timetable: FrameTimetable
    }

    private unowned let connection: QUICConnection
    private var roles: [Int64: Role] = [:]
    private var schedules: [DownSchedule] = []
    /// Message blocks of the pulls by message size, borrowed by ngtcp2 until the connection is gone.
    private var blocks: [UInt64: MessageBlock] = [:]
    private var scheduledStreams = 0
    private var pullStreams = 0
    private var pullSizes: Set<UInt64> = []
    private var flowStreams = 0
    private var deferred: [() -> Void] = []
    /// The connection is the cell's client (HELLO with the cell's token).
    private var claimed = false

    init(connection: QUICConnection) { self.connection = connection }

    /// Whether the workload handles `stream` (otherwise it is a bulk stream or new).
    func handles(_ stream: Int64) -> Bool {
        guard let r = roles[stream] else { return false }
        if case .bulk = r { return false }
        return true
    }

    /// The stream's first DATA came before any workload frame: a bulk stream of the upload.
    /// Returns false when the stream is a workload stream (the caller passes the bytes on).
    func noteBulkData(on stream: Int64) -> Bool {
        switch roles[stream] {
        case nil:
            roles[stream] = .bulk
            return true
        case .bulk?: return true
        default: return false
        }
    }

    /// The connection proved to be the cell's client: what waited for it goes out now.
    func claim() {
        claimed = true
        let actions = deferred
        deferred = []
        for a in actions { a() }
    }

    /// A stray's workload streams got no answer (it presented PROBE_HELLO, not HELLO).
    var hasDeferred: Bool { !deferred.isEmpty }

    private func whenClaimed(_ action: @escaping () -> Void) throws {
        if claimed {
            action()
            return
        }
        guard deferred.count < Self.maxDeferred else {
            throw FramingError(description: "more than \(Self.maxDeferred) workload streams before HELLO")
        }
        deferred.append(action)
    }

    /// A control frame on a stream other than the control stream.
    func control(_ frame: ControlFrame, on stream: Int64) throws {
        switch (roles[stream], frame) {
        case (nil, .request(let bytes)):
            guard bytes <= UInt64(WorkloadSpec.Limits.messageBytes) else {
                throw FramingError(description: "REQUEST asks for a \(bytes)-byte response; at most \(WorkloadSpec.Limits.messageBytes)")
            }
            roles[stream] = .request(RequestState(responseBytes: bytes))
        case (nil, .frame):
            try takeScheduledStream(frame)
            roles[stream] = .frameUp(FrameUpState())
            try frameUp(frame, on: stream)
        case (.frameUp?, .frame):
            try frameUp(frame, on: stream)
        case (nil, .framePull(let p)):
            guard p.frames <= UInt64(WorkloadSpec.Limits.frames), (1...UInt64(WorkloadSpec.Limits.frameBytes)).contains(p.frameBytes),
                (UInt64(WorkloadSpec.Limits.periodMs.lowerBound * 1e6)...UInt64(WorkloadSpec.Limits.periodMs.upperBound * 1e6)).contains(
                    p.periodNanos)
            else {
                throw FramingError(
                    description:
                        "FRAME_PULL of \(p.frames) frames of \(p.frameBytes) B every \(p.periodNanos) ns is out of bounds (at most \(WorkloadSpec.Limits.frames) frames of 1 B to \(WorkloadSpec.Limits.frameBytes) B, a period of 1 to 10 000 ms)"
                )
            }
            try takeScheduledStream(frame)
            roles[stream] = .frameDown
            try whenClaimed { [unowned self] in
                schedules.append(
                    DownSchedule(
                        stream: stream, frameBytes: Int(p.frameBytes),
                        timetable: FrameTimetable(frames: Int(p.frames), periodNanos: p.periodNanos)))
                if p.frames == 0 { connection.sender(stream).finish() }
            }
        case (nil, .pull(let count, let size)):
            try openPull(count: count, size: size, on: stream)
        case (nil, .flow(let index)):
            guard index < UInt64(WorkloadSpec.Limits.streams), flowStreams < Self.maxFlowStreams else {
                throw FramingError(
                    description:
                        "FLOW \(index) is out of bounds (flow indices 0 to \(WorkloadSpec.Limits.streams - 1), at most \(Self.maxFlowStreams) flow streams per connection)"
                )
            }
            flowStreams += 1
            roles[stream] = .flow(FlowState())
        case (.bulk?, _):
            throw FramingError(description: "control frame on bulk stream \(stream)")
        default:
            throw FramingError(description: "\(frame) is not allowed on workload stream \(stream) here")
        }
    }

    private func takeScheduledStream(_ frame: ControlFrame) throws {
        guard scheduledStreams < Self.maxScheduledStreams else {
            throw FramingError(description: "more than \(Self.maxScheduledStreams) frame streams on one connection (\(frame))")
        }
        scheduledStreams += 1
    }

    /// A pull stream: `count` messages of `size` bytes go out on it once the connection is
    /// claimed, borrowing the block of that size (shared by the connection's pulls).
    private func openPull(count: UInt64, size: UInt64, on stream: Int64) throws {
        guard count <= Self.maxPullCount, size <= Self.maxPullSize else {
            throw FramingError(
                description: "PULL of \(count) messages of \(size) B is out of bounds (at most \(Self.maxPullCount) of at most \(Self.maxPullSize) B)"
            )
        }
        guard pullStreams < Self.maxPullStreams, pullSizes.contains(size) || pullSizes.count < Self.maxPullSizes else {
            throw FramingError(
                description:
                    "more than \(Self.maxPullStreams) pull streams or \(Self.maxPullSizes) message sizes on one connection (PULL of \(size) B)")
        }
        pullStreams += 1
        pullSizes.insert(size)
        roles[stream] = .pull
        try whenClaimed { [unowned self] in
            let block = blocks[size] ?? MessageBlock(size: Int(size), seed: size)
            blocks[size] = block
            let s = connection.sender(stream)
            // Parallel pulls take turns; a single one is alone in its turn.
            s.sharesFairly = true
            s.append(borrowing: block.region, repeats: count)
            s.finish()
        }
    }

    private func frameUp(_ frame: ControlFrame, on stream: Int64) throws {
        guard case .frameUp(var state)? = roles[stream], case .frame(let seq) = frame else { return }
        guard !state.inFrame else {
            throw FramingError(description: "FRAME \(seq) before the DATA of frame \(state.expected - 1) on stream \(stream)")
        }
        guard seq == state.expected else { throw FramingError(description: "FRAME \(seq) on stream \(stream); expected \(state.expected)") }
        guard seq < UInt64(WorkloadSpec.Limits.frames) else {
            throw FramingError(description: "more than \(WorkloadSpec.Limits.frames) frames on stream \(stream)")
        }
        state.expected += 1
        state.inFrame = true
        state.frameBytes = 0
        roles[stream] = .frameUp(state)
    }

    /// `n` body bytes of a DATA on a workload stream (`complete`: its last).
    func data(_ n: Int, complete: Bool, on stream: Int64) throws {
        switch roles[stream] {
        case .request(var r)?:
            guard !r.dataComplete else { throw FramingError(description: "a second DATA on request stream \(stream)") }
            r.requestBytes += UInt64(n)
            guard r.requestBytes <= UInt64(WorkloadSpec.Limits.messageBytes) else {
                throw FramingError(description: "request on stream \(stream) exceeds \(WorkloadSpec.Limits.messageBytes) bytes")
            }
            if complete { r.dataComplete = true }
            roles[stream] = .request(r)
        case .frameUp(var f)?:
            guard f.inFrame else { throw FramingError(description: "DATA without its FRAME on frame stream \(stream)") }
            f.frameBytes += UInt64(n)
            guard f.frameBytes <= UInt64(WorkloadSpec.Limits.frameBytes) else {
                throw FramingError(description: "frame \(f.expected - 1) on stream \(stream) exceeds \(WorkloadSpec.Limits.frameBytes) bytes")
            }
            if complete {
                f.inFrame = false
                f.arrivals.append(MonotonicClock.now())
            }
            roles[stream] = .frameUp(f)
        case .flow(var f)?:
            let now = MonotonicClock.now()
            if f.bytes == 0 && f.messages == 0 { f.firstByteAt = now }
            f.lastByteAt = now
            f.bytes += UInt64(n)
            if complete { f.messages += 1 }
            roles[stream] = .flow(f)
        default:
            throw FramingError(description: "DATA on workload stream \(stream), which carries only its request frame")
        }
    }

    /// The client ended its direction of a workload stream (at a frame boundary).
    func ended(_ stream: Int64) throws {
        switch roles[stream] {
        case .request(let r)?:
            let bytes = r.responseBytes
            guard r.dataComplete else {
                throw FramingError(description: "request stream \(stream) ended without its request DATA")
            }
            try whenClaimed { [unowned self] in
                let s = connection.sender(stream)
                s.append(copying: FrameEncoder.header(.data, length: UInt32(bytes)))
                s.appendFiller(Int(bytes))
                s.finish()
            }
        case .frameUp(let f)?:
            guard !f.inFrame else { throw FramingError(description: "frame stream \(stream) ended before the DATA of frame \(f.expected - 1)") }
            // Relative to the first arrival: the client anchors the schedule itself.
            let first = f.arrivals.first ?? 0
            let arrivals = f.arrivals.map { $0 - first }
            try whenClaimed { [unowned self] in
                let s = connection.sender(stream)
                s.append(copying: FrameEncoder.encode(.frameArrivals(arrivals)))
                s.finish()
            }
            roles[stream] = .answered
        case .flow(let f)?:
            try whenClaimed { [unowned self] in
                let s = connection.sender(stream)
                s.append(
                    copying: FrameEncoder.encode(
                        .flowReport(
                            FlowReportBody(
                                messages: f.messages, bytes: f.bytes,
                                firstByteNanos: f.firstByteAt, lastByteNanos: f.lastByteAt))))
                s.finish()
            }
            roles[stream] = .answered
        case .frameDown?, .pull?:
            break
        case .answered?:
            throw FramingError(description: "stream \(stream) ended twice")
        case .bulk?, nil:
            throw FramingError(description: "stream \(stream) ended before its first frame")
        }
    }

    /// ngtcp2 freed the stream (both directions over).
    func closed(_ stream: Int64) { roles[stream] = nil }

    /// A pull or a frame-down flow still has data to send or unacknowledged: the
    /// session is not over while it does, even when the upload's REPORT was acknowledged
    /// (bidir: the upload can end first).
    var isSending: Bool {
        !schedules.isEmpty
            || roles.values.contains {
                switch $0 {
                case .pull, .frameDown: true
                default: false
                }
            }
    }

    /// When the next frame of a frame-down flow is due (monotonic ns), or nil.
    var nextDue: UInt64? { schedules.compactMap(\.timetable.nextDue).min() }

    /// Queues every frame of the frame-down flows due at `now`; a flow that fell behind
    /// (its window full through an outage) sends what it owes at once.
    func tick(now: UInt64) {
        guard !schedules.isEmpty else { return }
        for i in schedules.indices {
            let s = connection.sender(schedules[i].stream)
            let size = schedules[i].frameBytes
            let due = schedules[i].timetable.takeDue(now: now)
            for seq in due {
                s.append(copying: FrameEncoder.encode(.frame(UInt64(seq))) + FrameEncoder.header(.data, length: UInt32(size)))
                s.appendFiller(size)
            }
            if !due.isEmpty, schedules[i].timetable.isFinished { s.finish() }
        }
        schedules.removeAll { $0.timetable.isFinished }
    }
}
