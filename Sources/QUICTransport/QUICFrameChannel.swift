import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The isochronous workload's channel over QUIC (docs/protocol/quic.md section 4c), in
/// the client's one event loop. Up: a frame stream carries FRAME(i) and a DATA of the
/// frame's size for each frame as it falls due, then FIN; the server answers on that
/// stream with its arrival times (FRAME_ARRIVALS). Down: FRAME_PULL on a stream of its
/// own has the server send the frames on its schedule, and `ClientWorkloadStreams`
/// stamps them; the server's FIN ends them.
struct QUICFrameChannel: FrameChannel {
    let client: QUICClient
    let connection: QUICConnection
    private var frames = 0
    private var pulled = false

    init(client: QUICClient, connection: QUICConnection) {
        self.client = client
        self.connection = connection
    }

    mutating func pullFrames(frames: Int, frameBytes: Int, periodNanos: UInt64) throws {
        self.frames = frames
        pulled = true
        let id = try client.openStream(connection, for: "opening the frame-down stream")
        client.workloadStreams.expectFrames(on: id)
        let s = connection.sender(id)
        s.append(
            copying: FrameEncoder.encode(.framePull(FramePullBody(frames: UInt64(frames), frameBytes: UInt64(frameBytes), periodNanos: periodNanos))))
        s.finish()
    }

    /// Each turn of the event loop queues the frames due (what a stream blocked by its
    /// window owes goes at once), until the last and the stream's FIN are queued.
    mutating func sendFrames(on timetable: inout FrameTimetable, frameBytes: Int) throws {
        let id = try client.openStream(connection, for: "opening the frame-up stream")
        client.workloadStreams.expectArrivals(on: id)
        let connection = connection
        var t = timetable
        defer { timetable = t }
        try client.pump("isochronous frames", wakeIn: { t.nanosUntilDue(now: MonotonicClock.now()) }) {
            let due = t.takeDue(now: MonotonicClock.now())
            guard !due.isEmpty else { return false }
            // Asked each time: the scheduler takes a stream back among those with data to send.
            let s = connection.sender(id)
            for i in due {
                s.append(copying: FrameEncoder.encode(.frame(UInt64(i))) + FrameEncoder.header(.data, length: UInt32(frameBytes)))
                s.appendFiller(frameBytes)
            }
            if t.isFinished { s.finish() }
            return t.isFinished
        }
    }

    /// The event loop until the server's FRAME_ARRIVALS (up) and its FIN of the frame-down
    /// stream (down) are in; more frames than were due is the server's error, not a measurement.
    mutating func endFrames(sent: Int?, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (
        up: FrameReport?, down: (arrivals: FrameArrivals, sent: Int)?
    ) {
        let streams = client.workloadStreams
        let pulled = pulled
        try client.pump("isochronous frames") { (sent == nil || streams.upArrivals != nil) && (!pulled || streams.downEnded) }
        let upCount = streams.upArrivals?.count ?? 0, downCount = streams.downArrivals.arrivals.count
        guard upCount <= (sent ?? 0), downCount <= frames else {
            throw QUICFailure.protocolViolation(
                "the server reported \(upCount) arrivals and sent \(downCount) frames; \(max(sent ?? 0, frames)) were due")
        }
        let up = sent.flatMap { n in
            streams.upArrivals.map {
                FrameSchedule.report(
                    arrivals: $0.enumerated().map { ($0.offset, $0.element) }, sent: n, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
            }
        }
        return (up, pulled ? (streams.downArrivals, frames) : nil)
    }
}
