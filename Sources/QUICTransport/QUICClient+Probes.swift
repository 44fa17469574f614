import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The client's probes (docs/protocol/quic.md): the idle probes before the workload,
/// ping-pong or pipelined, and the separate flow that carries loaded probes beside the
/// bulk phase.
extension QUICClient {
    /// Opens the control stream, queues HELLO and runs the idle probes by `method`;
    /// returns the control stream. `probeSpacing`: for pipelined probes, nanoseconds
    /// between probe sends (0 = all at once).
    func idleProbes(
        _ probes: Int, method: RTTMethod, probeSpacing: UInt64, on connection: QUICConnection,
        into m: inout TransportMeasurement
    ) throws -> Int64 {
        // Probes: one PING at a time on the control stream, timed until its PONG.
        let control = try openControlStream(on: connection)
        // HELLO first: it travels with the first PING (or DONE) and costs no round trip.
        if !setup.helloQueued { connection.sender(control).append(copying: FrameEncoder.encode(.hello(token))) }
        setup.helloQueued = true
        m.rttNanos.reserveCapacity(probes)
        m.rttMethod = method
        switch method {
        case .pingPong:
            for seq in 0..<UInt64(probes) {
                let sent = MonotonicClock.now()
                connection.sender(control).append(copying: FrameEncoder.encode(.ping(seq)))
                try pump("RTT probes") { self.log.pongs[seq] != nil }
                m.rttNanos.append((log.pongs.removeValue(forKey: seq) ?? sent) - sent)
            }
        case .pipelined, .sendLoop:
            try pipelinedProbes(probes, spacing: method == .sendLoop ? 0 : probeSpacing, on: connection, stream: control, into: &m)
        }
        m.probesSent = probes
        return control
    }

    /// Pipelined probes (`RTTMethod.pipelined`): every PING queued on the control stream
    /// at once, each stamped as it is queued, then the event loop runs until every PONG
    /// is in; each PONG is timed as ngtcp2 hands it over. ngtcp2 packs the PINGs into as
    /// few packets as its congestion window allows, as a stack does with writes that
    /// come faster than the network takes them. A lost packet is retransmitted by QUIC,
    /// so every probe is answered (or the cell ends at its deadline).
    /// With `spacing`, probe i is queued at start + i x spacing, from inside the event loop.
    private func pipelinedProbes(
        _ probes: Int, spacing: UInt64, on connection: QUICConnection, stream control: Int64,
        into m: inout TransportMeasurement
    ) throws {
        guard probes > 0 else { return }
        var sentAt: [UInt64] = []
        sentAt.reserveCapacity(probes)
        var times = PipelinedProbeTimes()
        let start = MonotonicClock.now()
        let app = MessageSchedule(appLoop, start: start)
        // Probe k is due at start + k x spacing, and no sooner than the app hands it over.
        func dueAt(_ k: Int) -> UInt64 { max(start &+ UInt64(k) &* spacing, app?.due(k) ?? 0) }
        func queueDue() {
            let now = MonotonicClock.now()
            while sentAt.count < probes && dueAt(sentAt.count) <= now {
                let t = MonotonicClock.now()
                connection.sender(control).append(copying: FrameEncoder.encode(.ping(UInt64(sentAt.count))))
                sentAt.append(t)
                times.sent(at: t)
            }
        }
        queueDue()
        func nextDue() -> UInt64? {
            guard sentAt.count < probes else { return nil }
            let due = dueAt(sentAt.count), now = MonotonicClock.now()
            return due > now ? due - now : 0
        }
        // Only idle PONGs (0..<probes) can be in `pongs` before the bulk phase.
        try pump("pipelined RTT probes", wakeIn: nextDue) {
            queueDue()
            return self.log.pongs.count >= probes
        }
        for seq in 0..<probes {
            let at = log.pongs.removeValue(forKey: UInt64(seq)) ?? sentAt[seq]
            m.rttNanos.append(at > sentAt[seq] ? at - sentAt[seq] : 0)
            times.echoed(at: at)
        }
        m.extra[PipelinedProbeTimes.extraKey] = times.json
    }

    /// Queues the loaded probe `schedule` has due now as a PING on `control` (sequence
    /// number with `loadedFlag` set); returns its sequence number and send time, or nil
    /// when none is due.
    static func queueDueProbe(
        _ schedule: inout LoadedProbeSchedule, on connection: QUICConnection,
        stream control: Int64
    ) -> (seq: UInt64, at: UInt64)? {
        let now = MonotonicClock.now()
        guard let k = schedule.takeDue(now: now) else { return nil }
        let seq = loadedFlag | UInt64(k)
        connection.sender(control).append(copying: FrameEncoder.encode(.ping(seq)))
        return (seq, now)
    }

    /// The separate probe flow's whole life (`loadedRttProbes.flow` `separate`): its own
    /// handshake, PROBE_HELLO, then a PING every interval on its control stream until
    /// `stopRequested` (checked each turn; `wake` ends a wait), then a clean close.
    /// Returns the answered probes' RTTs in send order and how many were sent.
    func probeFlow(_ probes: LoadedRttProbes, stopRequested: @escaping () -> Bool) throws -> (rtts: [UInt64], sent: Int) {
        cancellation.register(channel.socket)
        cancellation.onCancel { [waker = channel.waker] in waker.wake() }
        defer { cancellation.unregister(channel.socket) }
        var sent: [(seq: UInt64, at: UInt64)] = []
        do {
            let (connection, _) = try handshake()
            guard let control = connection.openBidiStream() else { throw QUICFailure.protocolViolation("the server allows no bidirectional stream") }
            setup.controlStream = control
            connection.sender(control).append(copying: FrameEncoder.encode(.probeHello(token)))
            var schedule = LoadedProbeSchedule(probes)
            schedule.begin(at: MonotonicClock.now())
            var queued = true  // PROBE_HELLO leaves at once
            try pump(
                "separate-flow probes",
                wakeIn: {
                    if queued {
                        queued = false
                        return 0
                    }
                    return schedule.nanosUntilDue()
                }
            ) {
                if stopRequested() { return true }
                if let probe = Self.queueDueProbe(&schedule, on: connection, stream: control) {
                    sent.append(probe)
                    queued = true
                }
                return false
            }
        } catch {
            // The stop's wake-up ends a wait as a cancellation would (also during the
            // handshake, when the bulk phase was shorter than it): not a failure.
            guard stopRequested(), !cancellation.isCancelled else { throw error }
        }
        if let connection, !connection.isFinished { connection.close(.application(ApplicationError.noError, ""), transmit: transmit) }
        dropConnection()
        return (sent.compactMap { p in log.pongs[p.seq].map { $0 - p.at } }, sent.count)
    }
}
