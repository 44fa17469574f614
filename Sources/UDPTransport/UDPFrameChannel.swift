import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchWorkloads

/// The isochronous workload's channel over udp (docs/protocol/udp.md, "Isochronous"):
/// a datagram a frame (`UDPFrameDatagram`) from the client's thread, the server's frames
/// taken by a `UDPFrameReceiver` thread, and udp's end of the phase: FRAME_END until the
/// FRAME_REPORTs hold every delay (`UDPClient.frameEndUntilReport`).
struct UDPFrameChannel: FrameChannel {
    private let client: UDPClient
    private var receiver: UDPFrameReceiver?
    private var frames = 0
    /// The `udp` object's figures of the phase: how many FRAME_PULLs and FRAME_ENDs went out.
    private(set) var extra = JSONObject()

    init(_ client: UDPClient) { self.client = client }

    /// The workload failed before `endFrames`: the receiver thread ends before the socket does.
    func abandon() { receiver?.stop() }

    /// FRAME_PULL is repeated after max(2 periods + 4 x the largest probe RTT, 50 ms) without any of the flow.
    mutating func pullFrames(frames: Int, frameBytes: Int, periodNanos: UInt64) throws {
        self.frames = frames
        receiver = try UDPFrameReceiver(
            socket: client.socket, session: client.session, tag: client.tag, cell: client.cell, frames: frames, size: frameBytes,
            periodNanos: periodNanos, linger: client.frameLinger, baseWait: max(2 * periodNanos + 4 * client.maxRtt, 50_000_000))
    }

    /// On this thread; a receiver that failed (the cell's deadline, an unreachable
    /// server) stops the schedule, and `endFrames` says why.
    mutating func sendFrames(on timetable: inout FrameTimetable, frameBytes: Int) throws {
        var datagram = UDPFrameDatagram(session: client.session, size: frameBytes, tag: client.tag)
        let (socket, receiver) = (client.socket, receiver)
        _ = try timetable.send(stopped: receiver.map { r in { r.hasFailed } }) { try datagram.send($0, on: socket) }
    }

    mutating func endFrames(sent: Int?, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (
        up: FrameReport?, down: (arrivals: FrameArrivals, sent: Int)?
    ) {
        var down: (arrivals: FrameArrivals, sent: Int)?
        if let receiver {
            let seen = try receiver.result()
            extra["frame_pull_attempts"] = JSONValue(seen.pulls)
            down = (seen.arrivals, seen.serverSent ?? frames)
        }
        var up: FrameReport?
        if let sent {
            let (report, attempts) = try client.frameEndUntilReport(sent: sent, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
            extra["frame_end_attempts"] = JSONValue(attempts)
            up = report
        }
        return (up, down)
    }
}
