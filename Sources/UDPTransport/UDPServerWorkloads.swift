import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The server's half of the workload kinds beyond the upload (docs/protocol/udp.md,
/// "Workloads"): answering REQUESTs, recording the client's FRAMEs and reporting them
/// at FRAME_END, sending frames on a FRAME_PULL and DATA on a PULL. Like the stream servers it keeps
/// no knowledge of the cell's workload: the datagrams say what to do, and every number
/// in them is bounded (`WorkloadSpec.Limits`, `UDPWorkloadLimits`) before it sizes
/// anything. A datagram with a number out of bounds is ignored, as any malformed one.
/// Runs on the session's thread; only a FRAME_PULL's or PULL's sender has its own.
struct UDPServerWorkloads {
    typealias L = WorkloadSpec.Limits
    /// The client's frames so far, on the monotonic clock, first copies only.
    private var received = FrameArrivals()
    /// (seq, arrival) of the client's frames so far.
    var arrivals: [(seq: Int, at: UInt64)] { received.arrivals }
    /// FRAME_END seen, report not yet made: {sent, period, deadline, when due, from}.
    private var pendingEnd: (sent: Int, period: UInt64, deadline: UInt64, due: UInt64, from: Int)?
    /// The frozen report of the client's frames; later frames are not counted.
    private(set) var frameReport: FrameReport?
    /// A FRAME_PULL's sender and what it asked for.
    private var sender: UDPServerSender?
    private(set) var pulled: (frames: Int, size: Int, periodNanos: UInt64)?
    /// A PULL's sender and what it asked for.
    private var bulkSender: UDPServerSender?
    private(set) var pulledData: (count: Int, size: Int)?
    private var answered = false

    /// The client has had an answer from a workload exchange (a RESPONSE, the frame
    /// report, a FRAME_PULL's frames all sent): the server may end at the deadline, or
    /// after its idle time, without the BYE.
    var concluded: Bool { answered || frameReport != nil || sender?.isDone == true || bulkSender?.isDone == true }

    /// A FRAME_PULL's frames or a PULL's DATA are still going out: the session is busy, not idle.
    var sending: Bool { sender.map { !$0.isDone } ?? false || bulkSender.map { !$0.isDone } ?? false }

    /// A REQUEST's RESPONSE (same `seq` and `ts`, `responseBytes` bytes), or nil when the
    /// size it asks for is out of bounds.
    mutating func response(to h: UDPDatagramHeader, _ d: UnsafeRawBufferPointer) -> [UInt8]? {
        let size = d.field(0)
        guard d.count >= UDPDatagramHeader.size + 8, size >= 1, size <= UInt64(UDPWorkloadLimits.maxResponseBytes) else { return nil }
        var out = [UInt8](repeating: 0, count: UDPDatagramHeader.size + Int(size))
        out.withUnsafeMutableBytes { p in
            UDPDatagramHeader(type: .response, session: h.session, sequence: h.sequence, timestamp: h.timestamp).write(to: p.baseAddress!)
        }
        answered = true
        return out
    }

    /// Records a FRAME's first arrival, until the report is frozen.
    mutating func frame(seq: UInt64, at: UInt64) {
        guard frameReport == nil else { return }
        received.record(seq: seq, at: at)
    }

    /// FRAME_END {sent, period ns, deadline ns, linger ns, from}: the report's datagram
    /// starting at delay `from` when the report is (or becomes) ready, else nil (the
    /// server lingers for frames still in flight; `timers` sends it when due).
    mutating func frameEnd(_ d: UnsafeRawBufferPointer, session: UInt32, now: UInt64) -> [UInt8]? {
        let from = Int(clamping: d.field(4))
        if frameReport == nil {
            if var end = pendingEnd {
                end.from = from
                pendingEnd = end
            } else {
                let period = d.field(1)
                guard d.count >= UDPDatagramHeader.size + 40, UDPWorkloadLimits.periodNanos.contains(period) else { return nil }
                pendingEnd = (
                    Int(clamping: min(d.field(0), UInt64(L.frames))), period, d.field(2),
                    now + min(d.field(3), UDPWorkloadLimits.maxLingerNanos), from
                )
            }
            return reportIfDue(session: session, now: now)
        }
        return reportDatagram(from: from, session: session)
    }

    /// Freezes the report once every frame the client sent is in, or the linger is over;
    /// returns the datagram the last FRAME_END asked for then.
    mutating func reportIfDue(session: UInt32, now: UInt64) -> [UInt8]? {
        guard frameReport == nil, let end = pendingEnd, arrivals.count >= end.sent || now >= end.due else { return nil }
        frameReport = received.report(sent: end.sent, periodNanos: end.period, deadlineNanos: end.deadline)
        pendingEnd = nil
        return reportDatagram(from: end.from, session: session)
    }

    /// FRAME_REPORT `seq` = from: {received, late, then the delays from `from` on, at
    /// most `delaysPerReport`}.
    private func reportDatagram(from: Int, session: UInt32) -> [UInt8]? {
        guard let r = frameReport else { return nil }
        let start = min(from, r.delayNanos.count)
        let delays = r.delayNanos[start..<min(r.delayNanos.count, start + UDPWorkloadLimits.delaysPerReport)]
        return UDPDatagramHeader(type: .frameReport, session: session, sequence: UInt64(start), timestamp: MonotonicClock.now())
            .datagram([UInt64(r.received), UInt64(r.late)] + delays)
    }

    /// FRAME_PULL {frames, size, period ns}: starts sending on the first one in bounds;
    /// a repeated one is answered with FRAMES_SENT once the frames are out (the client
    /// repeats FRAME_PULL when it hears nothing: the pull or the FRAMES_SENT was lost).
    mutating func framePull(_ d: UnsafeRawBufferPointer, socket: Socket, session: UInt32) -> [UInt8]? {
        if let sender {
            return sender.isDone ? Self.framesSent(sender.sent, session: session) : nil
        }
        let frames = d.field(0), size = d.field(1), period = d.field(2)
        guard d.count >= UDPDatagramHeader.size + 24, (1...UInt64(L.frames)).contains(frames),
            (1...UInt64(UDPWorkloadLimits.maxFrameBytes)).contains(size), UDPWorkloadLimits.periodNanos.contains(period)
        else { return nil }
        pulled = (Int(frames), Int(size), period)
        sender = UDPServerSender.frames(socket: socket, session: session, count: Int(frames), size: Int(size), periodNanos: period) {
            Self.framesSent($0, session: session)
        }
        return nil
    }

    /// PULL {count, size}: starts sending DATA on the first one in bounds (at most the
    /// cell's own payload: count and size, as a HELLO's count is bounded); a repeated one
    /// is answered with PUSHED once the DATA is out.
    mutating func pull(_ d: UnsafeRawBufferPointer, socket: Socket, session: UInt32, payload: Payload?, rateMbps: Double?) -> [UInt8]? {
        if let bulkSender, let asked = pulledData {
            return bulkSender.isDone ? UDPServerSender.pushed(sent: bulkSender.sent, size: asked.size, session: session) : nil
        }
        guard let payload, d.count >= UDPDatagramHeader.size + 16 else { return nil }
        let count = d.field(0), size = d.field(1)
        guard (1...UInt64(max(1, payload.count))).contains(count),
            (1...UInt64(max(1, min(payload.size, UDPDatagramHeader.maxMessageSize)))).contains(size)
        else { return nil }
        pulledData = (Int(count), Int(size))
        bulkSender = UDPServerSender.pull(socket: socket, session: session, count: Int(count), size: Int(size), rateMbps: rateMbps)
        return nil
    }

    static func framesSent(_ n: Int, session: UInt32) -> [UInt8] {
        UDPDatagramHeader(type: .framesSent, session: session, sequence: 0, timestamp: MonotonicClock.now()).datagram([UInt64(n)])
    }

    /// Stops a FRAME_PULL's sender still sending and waits for it: the session is over.
    func stop() {
        sender?.stop()
        bulkSender?.stop()
    }
}
