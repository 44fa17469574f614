import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The idle probes before the workload (docs/protocol/udp.md): ping-pong, one PROBE
/// at a time until its ECHO, or pipelined, every PROBE back to back.
extension UDPClient {
    /// The idle probes by the cell's method; `m.rttMethod` says which ran.
    func probes() throws {
        switch cell.rttMethod {
        case .pingPong: try pingPongProbes()
        case .pipelined, .sendLoop: try pipelinedProbes()
        }
    }

    /// Every PROBE back to back, `seq` 0..<rttProbes, while `UDPPipelinedProber` times
    /// the echoes on another thread; unanswered ones are lost (docs/protocol/udp.md).
    private func pipelinedProbes() throws {
        m.rttMethod = cell.rttMethod
        m.probesSent = 0
        guard cell.rttProbes > 0 else { return }
        let reader = UDPPipelinedProber(socket: socket, session: session, count: cell.rttProbes, cell: cell)
        reader.start()
        var times = PipelinedProbeTimes()
        let app = MessageSchedule(cell.appLoop, start: MonotonicClock.now())
        do {
            for seq in 0..<cell.rttProbes {
                times.waitForSend(seq, spacing: cell.rttProbeSpacingNanos)
                app?.wait(for: seq)
                try send(header(.probe, UInt64(seq)).datagram())
                times.sent(at: MonotonicClock.now())
                m.probesSent = seq + 1
            }
        } catch {
            // Let the reader end (at once for a shut socket) before the socket goes.
            reader.sendingEnded(at: 0)
            _ = try? reader.finish()
            throw error
        }
        reader.sendingEnded(at: MonotonicClock.now())
        let answers = try reader.finish()
        m.rttNanos = answers.rtts
        maxRtt = max(maxRtt, answers.maxRtt)
        times.firstEchoAt = answers.firstAt
        times.lastEchoAt = answers.lastAt
        m.extra[PipelinedProbeTimes.extraKey] = times.json
        if let loop = cell.appLoop.extra { m.extra[AppLoop.extraKey] = loop }
        if let last = answers.lastAt { keepAlive?.heard(at: last) }
    }

    /// PROBE with sequence i, answered by ECHO; a probe unanswered within the timeout is lost.
    private func pingPongProbes() throws {
        m.rttMethod = .pingPong
        m.probesSent = 0
        m.rttNanos.reserveCapacity(cell.rttProbes)
        let timeout = UInt64(options.probeTimeoutMs) * 1_000_000
        for seq in 0..<cell.rttProbes {
            let t = MonotonicClock.now()
            try send(header(.probe, UInt64(seq), t).datagram())
            m.probesSent = seq + 1
            if try waitFor(.echo, sequence: UInt64(seq), within: timeout) != nil {
                let rtt = MonotonicClock.elapsed(since: t)
                m.rttNanos.append(rtt)
                maxRtt = max(maxRtt, rtt)
            }
        }
    }
}
