import PeerBenchPlugin
import PeerBenchWorkloads

/// The isochronous workload's channel over a byte stream (docs/protocol/tcp.md,
/// "Workloads"): each frame its DATA then FRAME {seq u32} in one write; FRAME_PULL asks
/// the server for its frames, FRAME_END for its FRAME_REPORT of the client's. A reader
/// thread (`FrameCollector`) takes everything the server sends while this thread sends.
struct StreamFrameChannel: FrameChannel {
    private let client: StreamWorkloadClient
    private let collector: FrameCollector

    /// Starts the reader: the server's frames when `down`, its FRAME_REPORT when `up`.
    init(_ client: StreamWorkloadClient, up: Bool, down: Bool) {
        self.client = client
        collector = FrameCollector(client, expectsDown: down, expectsReport: up)
        collector.start()
    }

    /// The workload failed before `endFrames`: stop the reader (its error goes unread).
    func abandon() { collector.abandon() }

    mutating func pullFrames(frames: Int, frameBytes: Int, periodNanos: UInt64) throws {
        try client.send(StreamFraming.controlFrame(.framePull, [UInt32(frames), UInt32(frameBytes), periodNanos]), during: "sending FRAME_PULL")
    }

    /// A write that fails because the reader ended (the server went away) says why the reader ended.
    mutating func sendFrames(on timetable: inout FrameTimetable, frameBytes: Int) throws {
        do {
            try StreamWorkloadFrames.sendFrames(on: &timetable, size: frameBytes) { try client.send($0, during: "sending frames") }
        } catch {
            throw collector.failure() ?? error
        }
    }

    /// FRAME_END {sent u32, period ns u64, deadline ns u64} after the frames sent, then
    /// whatever the reader collected.
    mutating func endFrames(sent: Int?, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (
        up: FrameReport?, down: (arrivals: FrameArrivals, sent: Int)?
    ) {
        if let sent {
            do {
                try client.send(StreamFraming.controlFrame(.frameEnd, [UInt32(sent), periodNanos, deadlineNanos]), during: "sending FRAME_END")
            } catch {
                throw collector.failure() ?? error
            }
        }
        let seen = try collector.finish()
        let up = sent.flatMap { n in
            seen.report.map { FrameReport(sent: n, received: $0.received, late: $0.late, deadlineNanos: deadlineNanos, delayNanos: $0.delays) }
        }
        return (up, collector.expectsDown ? (seen.arrivals, seen.downSent) : nil)
    }
}
