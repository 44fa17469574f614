import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// Isochronous frames over udp (docs/protocol/udp.md, "Isochronous"): one FRAME
/// datagram per frame. Up, the client sends them on schedule and the server reports
/// what it saw (FRAME_END until FRAME_REPORT, as END and REPORT); down, FRAME_PULL has
/// the server send them and the client times them by their kernel receive stamps;
/// bidir, a sender thread sends the client's frames while this thread receives.
extension UDPClient {
    func isochronous(frames: Int, size: Int, periodNanos: UInt64, direction: WorkloadSpec.Direction, deadlineNanos: UInt64) throws {
        let up = direction != .down, down = direction != .up
        var udp = commonExtra()
        var downReport: FrameReport?
        if down {
            // Up frames go from a thread of their own while this one receives the server's.
            let sender =
                up
                ? UDPFrameSender(
                    name: "udp frame sender", socket: socket, session: session, count: frames, size: size,
                    periodNanos: periodNanos, tag: tag) : nil
            do {
                let (r, attempts) = try pullFrames(frames: frames, size: size, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
                downReport = r
                udp["frame_pull_attempts"] = attempts
            } catch {
                sender?.stop()
                throw error
            }
            if let sender { _ = try sender.join() }
        } else {
            _ = try UDPFrameSender(
                name: "udp frame sender", socket: socket, session: session, count: frames, size: size,
                periodNanos: periodNanos, tag: tag
            ).join()
        }
        var upReport: FrameReport?
        if up {
            let (r, attempts) = try frameEndUntilReport(sent: frames, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
            udp["frame_end_attempts"] = JSONValue(attempts)
            upReport = r
        }
        m.recordFrames(up: upReport, down: downReport, transport: "udp")
        udp["frame_datagram_bytes"] = JSONValue(UDPDatagramHeader.size + size)
        m.extra["udp"] = .object(udp)
    }

    /// How long the server, and the client after FRAMES_SENT, wait for frames still in
    /// flight: 2 x the largest probe RTT, clamped to 2 ms ... 500 ms (END's linger).
    var frameLinger: UInt64 { min(max(2 * maxRtt, 2_000_000), 500_000_000) }

    /// FRAME_PULL {frames, size, period} and the server's frames, each timed by its kernel
    /// receive stamp, until FRAMES_SENT {sent} and every frame sent is in, or `frameLinger`
    /// after FRAMES_SENT. FRAME_PULL is repeated when nothing of the flow has come for
    /// max(2 periods + 4 x the largest probe RTT, 50 ms) (doubling up to 1 s): the pull or
    /// the FRAMES_SENT was lost, and the server answers a repeated pull with FRAMES_SENT
    /// once its frames are out. Returns the report and how many FRAME_PULLs went out.
    private func pullFrames(frames: Int, size: Int, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (FrameReport, JSONValue) {
        try socket.setOption(SOL_SOCKET, SO_TIMESTAMPNS, Int32(1), "SO_TIMESTAMPNS")
        let rx = UDPBatchReceiver(capacity: 64)
        var arrivals = FrameArrivals(limit: frames)
        var serverSent: Int?
        var sentAt: UInt64 = 0  // FRAMES_SENT's arrival
        let baseWait = max(2 * periodNanos + 4 * maxRtt, 50_000_000)
        var wait = baseWait
        var attempts: UInt64 = 0
        var lastActivity: UInt64 = 0
        func pull() throws {
            try send(header(.framePull, attempts).datagram([UInt64(frames), UInt64(size), periodNanos]))
            attempts += 1
            lastActivity = MonotonicClock.now()
        }
        try pull()
        while true {
            let now = MonotonicClock.now()
            if let sent = serverSent, arrivals.arrivals.count >= sent || now >= sentAt + frameLinger { break }
            if now >= lastActivity + wait {
                try pull()
                wait = min(2 * wait, max(1_000_000_000, baseWait))
                continue
            }
            var until = lastActivity + wait
            if serverSent != nil { until = min(until, sentAt + frameLinger) }
            guard let n = try receiveFrames(rx, waitingUntil: until, now: now, have: "\(arrivals.arrivals.count) of \(frames)") else { continue }
            let mono = MonotonicClock.now()
            let real = LoadedEchoPoller.realtimeNow()
            for i in 0..<n {
                guard let h = UDPDatagramHeader(rx.datagram(i)), h.session == session else { continue }
                switch h.type {
                case .frame:
                    lastActivity = mono
                    wait = baseWait
                    // The kernel's stamp (realtime) moved to the monotonic clock by its age.
                    let age = rx.timestamp(i).map { real > $0 ? real - $0 : 0 } ?? 0
                    arrivals.record(seq: h.sequence, at: mono &- age)
                case .framesSent where serverSent == nil:
                    lastActivity = mono
                    serverSent = Int(min(rx.datagram(i).field(0), UInt64(frames)))
                    sentAt = mono
                default:
                    continue
                }
            }
        }
        let report = arrivals.report(sent: serverSent ?? frames, periodNanos: periodNanos, deadlineNanos: deadlineNanos)
        return (report, JSONValue(Int(attempts)))
    }

    /// One batch of datagrams for `pullFrames`, waiting until `until` at most (and never
    /// past the cell's deadline); nil when the wait ended empty.
    private func receiveFrames(_ rx: UDPBatchReceiver, waitingUntil until: UInt64, now: UInt64, have: String) throws -> Int? {
        let remaining = cell.remainingNanos
        if remaining == 0 { throw TransportError("udp client: cell deadline passed receiving frames (\(have) in)") }
        try UDPSocketSetup.receiveTimeout(socket, nanos: min(until > now ? until - now : 0, remaining))
        let n: Int?
        do { n = try rx.receive(socket) } catch let e as SystemError where e.errno == ECONNREFUSED {
            throw TransportError("udp client: the server at \(cell.server.address) is unreachable (ICMP port unreachable)")
        }
        if n == 0 { throw TransportError("udp client: socket shut down (cell cancelled)") }
        return n
    }

    /// FRAME_END {sent, period, deadline, linger, from} until the FRAME_REPORTs hold every
    /// delay: each answers with up to 1 000 delays from `from`, and the client asks on from
    /// the first it lacks. Waits like END: `linger` + max(4 x the largest probe RTT, 10 ms)
    /// first, doubling up to 1 s; a FRAME_REPORT that brings delays is answered at once.
    /// Returns the server's report and how many FRAME_ENDs went out.
    private func frameEndUntilReport(sent: Int, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (FrameReport, Int) {
        let linger = frameLinger
        var rto = linger + max(4 * maxRtt, 10_000_000)
        var delays: [UInt64] = []
        var received: Int?
        var late = 0
        var attempt: UInt64 = 0
        while received.map({ delays.count < $0 }) ?? true {
            try send(header(.frameEnd, attempt).datagram([UInt64(sent), periodNanos, deadlineNanos, linger, UInt64(delays.count)]))
            attempt += 1
            guard let r = try waitFor(.frameReport, sequence: UInt64(delays.count), within: rto), r.count >= 2 else {
                rto = min(rto * 2, 1_000_000_000)
                continue
            }
            // The server's figures, bounded by what was sent: a report never sizes more.
            // The first FRAME_REPORT's count holds; a later one that disagrees adds nothing.
            let total = received ?? Int(min(r[0], UInt64(sent)))
            if received == nil {
                received = total
                late = Int(min(r[1], UInt64(total)))
            }
            delays += r[2...].prefix(max(0, total - delays.count))
            rto = max(4 * maxRtt, 10_000_000)
        }
        let report = FrameReport(sent: sent, received: received ?? 0, late: late, deadlineNanos: deadlineNanos, delayNanos: delays)
        return (report, Int(attempt))
    }
}
