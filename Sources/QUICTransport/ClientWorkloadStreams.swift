import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// What the client reads on its workload streams (docs/protocol/quic.md, section 4c):
/// the response of each request stream, the server's FRAME_ARRIVALS on a frame-up
/// stream, the frames of a frame-down stream and the messages of a pull stream, each
/// stamped with the monotonic clock as ngtcp2 hands its last byte over.
/// The server's bytes are parsed like the control stream's: anything the protocol
/// does not allow there is a `FramingError` (the connection closes as a violation).
final class ClientWorkloadStreams {
    private enum Role {
        /// Request number `index`, answered by one DATA: its bytes so far, and whether it is whole.
        case request(index: Int, bytes: Int, whole: Bool)
        case frameUp
        case frameDown
        case pull
        /// Flow stream `index` of a bulk up over parallel streams: FLOW_REPORT answers it.
        case flow(index: Int)
    }

    /// What one pull stream delivered, each whole message stamped on arrival, and whether the server ended it.
    struct PullFlow {
        var received = ReceivedMessages()
        var ended = false
    }

    private var roles: [Int64: Role] = [:]
    private var parsers: [Int64: FrameParser] = [:]

    /// Request-response: the responses whole so far and not yet taken, in the order they ended.
    private var responses: [TransactionResponse] = []

    /// Isochronous up: the server's arrival times (nil until FRAME_ARRIVALS).
    private(set) var upArrivals: [UInt64]?
    /// Isochronous down: the frames read, and whether the server ended the stream.
    private(set) var downArrivals = FrameArrivals()
    private(set) var downEnded = false
    private var downPending: UInt64?
    /// Pull streams: what each delivered (one, or one per parallel flow).
    private(set) var pulls: [Int64: PullFlow] = [:]
    /// Flow streams: the server's FLOW_REPORT and when it arrived, by flow index.
    private(set) var flowReports: [Int: (report: FlowReportBody, at: UInt64)] = [:]
    /// Message blocks the flow streams borrow: ngtcp2 may resend from them until the connection is gone.
    private var blocks: [MessageBlock] = []

    /// Whether every pull stream has ended.
    var pullEnded: Bool { pulls.values.allSatisfy(\.ended) }

    /// Figures for `extra.quic` (set by the workload that ran).
    var extra: [String: JSONValue] = [:]

    func handles(_ stream: Int64) -> Bool { roles[stream] != nil }

    func expectResponse(on stream: Int64, request index: Int) { roles[stream] = .request(index: index, bytes: 0, whole: false) }

    /// Whether a response ended that `takeResponse` has not handed out yet.
    var hasResponse: Bool { !responses.isEmpty }

    /// The oldest response not taken yet.
    func takeResponse() -> TransactionResponse? { responses.isEmpty ? nil : responses.removeFirst() }
    func expectArrivals(on stream: Int64) { roles[stream] = .frameUp }
    func expectFrames(on stream: Int64) { roles[stream] = .frameDown }
    func expectPull(on stream: Int64) {
        roles[stream] = .pull
        pulls[stream] = PullFlow()
    }
    func expectFlowReport(on stream: Int64, flow index: Int) { roles[stream] = .flow(index: index) }
    /// Keeps `block` alive for the connection's lifetime (flow streams borrow it).
    func keep(_ block: MessageBlock) { blocks.append(block) }

    func received(stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws {
        guard let role = roles[stream] else { return }
        var parser = parsers[stream] ?? FrameParser(acceptsSeries: true)
        try parser.feed(
            data,
            onData: { n, complete in
                // A request's role holds its response's progress: read it as it is now.
                try self.data(n, complete: complete, role: self.roles[stream] ?? role, on: stream)
            },
            onControl: { frame in
                try self.control(frame, role: role, on: stream)
            })
        guard fin else {
            parsers[stream] = parser
            return
        }
        guard parser.atFrameBoundary else { throw FramingError(description: "workload stream \(stream) ended inside a frame") }
        parsers[stream] = nil
        let ended = roles.removeValue(forKey: stream) ?? role
        let now = MonotonicClock.now()
        switch ended {
        case .request(let index, let bytes, let whole):
            guard whole else { throw FramingError(description: "the response to request \(index) ended without its DATA") }
            responses.append((seq: index, bytes: bytes, at: now))
        case .frameUp:
            guard upArrivals != nil else { throw FramingError(description: "frame stream \(stream) ended without FRAME_ARRIVALS") }
        case .frameDown:
            guard downPending == nil else { throw FramingError(description: "frame stream \(stream) ended before the DATA of its last FRAME") }
            downEnded = true
        case .pull:
            pulls[stream]?.ended = true
        case .flow(let index):
            guard flowReports[index] != nil else { throw FramingError(description: "flow stream \(stream) ended without FLOW_REPORT") }
        }
    }

    private func data(_ n: Int, complete: Bool, role: Role, on stream: Int64) throws {
        switch role {
        case .request(let index, let bytes, let whole):
            guard !whole else { throw FramingError(description: "a second DATA in the response to request \(index)") }
            roles[stream] = .request(index: index, bytes: bytes + n, whole: complete)
        case .frameDown:
            guard let seq = downPending else { throw FramingError(description: "DATA without its FRAME on frame stream \(stream)") }
            if complete {
                downArrivals.record(seq: seq, at: MonotonicClock.now())
                downPending = nil
            }
        case .pull:
            let now = MonotonicClock.now()
            pulls[stream]?.received.bytesArrived(n, at: now)
            if complete { pulls[stream]?.received.messageArrived(at: now) }
        case .frameUp, .flow:
            throw FramingError(description: "DATA on frame-up or flow stream \(stream); the server sends only its report there")
        }
    }

    private func control(_ frame: ControlFrame, role: Role, on stream: Int64) throws {
        switch (role, frame) {
        case (.frameDown, .frame(let seq)):
            let expected = downArrivals.arrivals.count
            guard downPending == nil, seq == UInt64(expected), seq < UInt64(WorkloadSpec.Limits.frames) else {
                throw FramingError(description: "FRAME \(seq) on frame stream \(stream); expected \(expected)")
            }
            downPending = seq
        case (.frameUp, .frameArrivals(let at)):
            guard upArrivals == nil else { throw FramingError(description: "a second FRAME_ARRIVALS on stream \(stream)") }
            upArrivals = at
        case (.flow(let index), .flowReport(let r)):
            guard flowReports[index] == nil else { throw FramingError(description: "a second FLOW_REPORT on stream \(stream)") }
            flowReports[index] = (r, MonotonicClock.now())
        default:
            throw FramingError(description: "\(frame) is not allowed on workload stream \(stream)")
        }
    }
}
