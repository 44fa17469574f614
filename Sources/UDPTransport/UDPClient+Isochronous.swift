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
/// the server send them and a receiver thread times them by their kernel receive
/// stamps; bidir, both at once.
extension UDPClient {
    /// The frames (`Isochronous`) over `UDPFrameChannel`, and the `udp` object's figures.
    func isochronous(_ workload: WorkloadSpec) throws {
        guard let isochronous = Isochronous(workload) else { return }
        var channel = UDPFrameChannel(self)
        do { try isochronous.run(over: &channel, transport: "udp", into: &m) } catch {
            channel.abandon()
            throw error
        }
        var udp = commonExtra()
        for member in channel.extra { udp[member.key] = member.value }
        udp["frame_datagram_bytes"] = JSONValue(UDPDatagramHeader.size + isochronous.frameBytes)
        m.extra["udp"] = .object(udp)
    }

    /// How long the server, and the client after FRAMES_SENT, wait for frames still in
    /// flight: 2 x the largest probe RTT, clamped to 2 ms ... 500 ms (END's linger).
    var frameLinger: UInt64 { min(max(2 * maxRtt, 2_000_000), 500_000_000) }

    /// FRAME_END {sent, period, deadline, linger, from} until the FRAME_REPORTs hold every
    /// delay: each answers with up to 1 000 delays from `from`, and the client asks on from
    /// the first it lacks. Waits like END: `linger` + max(4 x the largest probe RTT, 10 ms)
    /// first, doubling up to 1 s; a FRAME_REPORT that brings delays is answered at once.
    /// Returns the server's report and how many FRAME_ENDs went out.
    func frameEndUntilReport(sent: Int, periodNanos: UInt64, deadlineNanos: UInt64) throws -> (FrameReport, Int) {
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
