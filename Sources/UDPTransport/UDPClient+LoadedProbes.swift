import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchSystem

/// Loaded RTT probes during the bulk phase (`loadedRttProbes`, docs/protocol/udp.md): on
/// the same flow, PROBEs between the DATA and their echoes timed on arrival; on a
/// separate flow, a second socket and its prober.
extension UDPClient {
    private var separateFlow: Bool { options.loadedRttProbes?.flow == .separate }

    /// With `loadedRttProbes.flow` `separate`: a second socket to the port the server
    /// announced, and its prober running (docs/protocol/udp.md); else nil.
    func startSeparateProber() throws -> (prober: UDPProbeFlowProber, socket: Socket)? {
        guard separateFlow, let probes = options.loadedRttProbes else { return nil }
        guard let port = helloExchange.probePort, port > 0 else {
            throw TransportError("udp client: the server announced no probe-flow port in HELLO_ACK (loadedRttProbes.flow \"separate\")")
        }
        let s = try UDPSocketSetup.make(family: server.family)
        cell.markServiceClass(s)
        cell.cancellation.register(s)
        do {
            try cell.applySendDeadline(to: s)
            try s.connect(SocketAddress(host: server.host, port: port))
        } catch {
            cell.cancellation.unregister(s)
            s.close()
            throw error
        }
        let prober = UDPProbeFlowProber(socket: s, session: session, probes: probes, timeoutNanos: UInt64(options.probeTimeoutMs) * 1_000_000)
        prober.start()
        return (prober, s)
    }

    /// Stops the separate prober (if still running) and closes its socket.
    func stopSeparateProber(_ separate: (prober: UDPProbeFlowProber, socket: Socket)) {
        separate.prober.finish()
        cell.cancellation.unregister(separate.socket)
        separate.socket.close()
    }

    /// A loaded PROBE {seq = base + k, ts = now} if one is due.
    func sendLoadedProbeIfDue() throws {
        let now = MonotonicClock.now()
        guard let k = loaded.schedule.takeDue(now: now) else { return }
        try send(header(.probe, Self.loadedSequenceBase + UInt64(k), now).datagram())
    }

    /// The REPORT, waiting at most `within`; loaded probes keep going meanwhile (the
    /// data may still be queued on the link) and their echoes are timed on arrival.
    func waitForReport(within: UInt64) throws -> [UInt64]? {
        let until = MonotonicClock.now() + within
        while true {
            let now = MonotonicClock.now()
            guard now < until else { return nil }
            if let r = try waitFor(.report, sequence: nil, within: min(until - now, loaded.schedule.nanosUntilDue())) { return r }
            try sendLoadedProbeIfDue()
        }
    }

    /// After the REPORT: the echoes of the last loaded probes, for at most `probeTimeoutMs`.
    func drainLoadedEchoes() throws {
        let until = MonotonicClock.now() + UInt64(options.probeTimeoutMs) * 1_000_000
        loaded.draining = true
        defer { loaded.draining = false }
        while loaded.rtts.count < loaded.schedule.sent {
            let now = MonotonicClock.now()
            guard now < until else { return }
            _ = try waitFor(.byeAck, sequence: nil, within: until - now)
        }
    }
}
