import PeerBenchPlugin

/// What the client reads on its workload streams (docs/protocol/quic.md, section 4c):
/// the response of each request stream, the server's FRAME_ARRIVALS on a frame-up
/// stream, the frames of a frame-down stream and the messages of a pull stream, each
/// stamped with the monotonic clock as ngtcp2 hands its last byte over.
/// The server's bytes are parsed like the control stream's: anything the protocol
/// does not allow there is a `FramingError` (the connection closes as a violation).
final class ClientWorkloadStreams {
    private enum Role {
        /// Request number `index`, answered by one DATA of `responseBytes`.
        case request(index: Int)
        case frameUp
        case frameDown
        case pull
    }

    private var roles: [Int64: Role] = [:]
    private var parsers: [Int64: FrameParser] = [:]

    /// Request-response: when each request's response ended (by request number), and what came.
    private(set) var responseAt: [Int: UInt64] = [:]
    private(set) var responseMessages = 0
    private(set) var responseBytes = 0
    private var responseComplete: [Int64: Bool] = [:]

    /// Isochronous up: the server's arrival times (nil until FRAME_ARRIVALS).
    private(set) var upArrivals: [UInt64]?
    /// Isochronous down: (sequence, arrival) of each frame read, and whether the server ended the stream.
    private(set) var downArrivals: [(seq: Int, at: UInt64)] = []
    private(set) var downEnded = false
    private var downPending: UInt64?
    /// Pull: whole messages and body bytes read, when the last whole one arrived, the first one's arrival.
    private(set) var pulledMessages = 0
    private(set) var pulledBytes = 0
    private(set) var firstPulledAt: UInt64?
    private(set) var lastPulledAt: UInt64?
    private(set) var pullEnded = false

    /// Figures for `extra.quic` (set by the workload that ran).
    var extra: [String: JSONValue] = [:]

    func handles(_ stream: Int64) -> Bool { roles[stream] != nil }

    func expectResponse(on stream: Int64, request index: Int) { roles[stream] = .request(index: index) }
    func expectArrivals(on stream: Int64) { roles[stream] = .frameUp }
    func expectFrames(on stream: Int64) { roles[stream] = .frameDown }
    func expectPull(on stream: Int64) { roles[stream] = .pull }

    func received(stream: Int64, data: UnsafeRawBufferPointer, fin: Bool) throws {
        guard let role = roles[stream] else { return }
        var parser = parsers[stream] ?? FrameParser(acceptsSeries: true)
        try parser.feed(data, onData: { n, complete in
            try self.data(n, complete: complete, role: role, on: stream)
        }, onControl: { frame in
            try self.control(frame, role: role, on: stream)
        })
        guard fin else {
            parsers[stream] = parser
            return
        }
        guard parser.atFrameBoundary else { throw FramingError(description: "workload stream \(stream) ended inside a frame") }
        parsers[stream] = nil
        roles[stream] = nil
        let now = MonotonicClock.now()
        switch role {
        case .request(let index):
            guard responseComplete.removeValue(forKey: stream) == true else {
                throw FramingError(description: "the response to request \(index) ended without its DATA")
            }
            responseAt[index] = now
        case .frameUp:
            guard upArrivals != nil else { throw FramingError(description: "frame stream \(stream) ended without FRAME_ARRIVALS") }
        case .frameDown:
            guard downPending == nil else { throw FramingError(description: "frame stream \(stream) ended before the DATA of its last FRAME") }
            downEnded = true
        case .pull:
            pullEnded = true
        }
    }

    private func data(_ n: Int, complete: Bool, role: Role, on stream: Int64) throws {
        switch role {
        case .request(let index):
            guard responseComplete[stream] == nil || responseComplete[stream] == false else {
                throw FramingError(description: "a second DATA in the response to request \(index)")
            }
            responseBytes += n
            responseComplete[stream] = complete
            if complete { responseMessages += 1 }
        case .frameDown:
            guard let seq = downPending else { throw FramingError(description: "DATA without its FRAME on frame stream \(stream)") }
            if complete {
                downArrivals.append((Int(seq), MonotonicClock.now()))
                downPending = nil
            }
        case .pull:
            pulledBytes += n
            if complete {
                let now = MonotonicClock.now()
                pulledMessages += 1
                if firstPulledAt == nil { firstPulledAt = now }
                lastPulledAt = now
            }
        case .frameUp:
            throw FramingError(description: "DATA on frame-up stream \(stream); the server sends only FRAME_ARRIVALS there")
        }
    }

    private func control(_ frame: ControlFrame, role: Role, on stream: Int64) throws {
        switch (role, frame) {
        case (.frameDown, .frame(let seq)):
            guard downPending == nil, seq == UInt64(downArrivals.count) else {
                throw FramingError(description: "FRAME \(seq) on frame stream \(stream); expected \(downArrivals.count)")
            }
            downPending = seq
        case (.frameUp, .frameArrivals(let at)):
            guard upArrivals == nil else { throw FramingError(description: "a second FRAME_ARRIVALS on stream \(stream)") }
            upArrivals = at
        default:
            throw FramingError(description: "\(frame) is not allowed on workload stream \(stream)")
        }
    }
}
