import PeerBenchPlugin
import PeerBenchTestbed

/// The generic per-cell cost, for plugins that give no estimate of their own. Its
/// constants were fitted to the per-cell times of matrices/quick.json,
/// matrices/hypotheses.json and matrices/edge-large.json on the emulated link, run on a
/// quiet machine (docs/UNATTENDED.md, "Estimates"); scripts/check-estimates.sh prints
/// estimate against actual.
public enum CellCost {
    /// Testbed (two namespaces, TUN devices, emulator), worker and server start, and
    /// teardown, plus the runner's own bookkeeping between cells (record written and
    /// flushed: about 25 ms of the run's wall time that no record's `total_seconds` holds).
    /// 0.15 until the `ip` and `tc` runs stopped waiting on Foundation's run loop (af9283e:
    /// 0 to 0.3 s a cell); matrices/resumption.json's 30 cells then took 0.26 s each.
    public static let setUpSeconds = 0.09
    /// What a round trip takes beyond twice the link's one-way delay: two user-space
    /// turnarounds and the emulator's release. Measured: 2.3 ms per probe on a 1 ms link.
    static let probeTurnaroundSeconds = 0.0005
    /// Round trips of a connection set-up (TCP's three-way handshake, QUIC's 1-RTT
    /// TLS handshake, UDP's control exchange): about two.
    static let handshakeRoundTrips = 2.0
    /// What a lost handshake packet costs on average: up to the initial retransmission
    /// timeout (1 s in Linux TCP, QUIC's first probe timeout), but the emulated loss
    /// comes in bursts and small packets are lost less often, so fitted far lower.
    static let handshakeLossSeconds = 0.2
    /// What a lost probe costs on average: TCP's minimum RTO (200 ms), QUIC's probe
    /// timeout, UDP's probe timeout (1 s) for the few probes lost outright; fitted.
    static let probeLossSeconds = 0.15
    /// Small probe frames are lost far less often than the link's full-size frames
    /// (`loss_percent` is the loss of a full MTU frame at that SNR).
    static let probeLossShare = 0.25
    /// Per-message cost of the bulk phase beyond the bytes (a system call per
    /// message and its framing): matters for many small messages.
    static let perMessageSeconds = 15e-6
    /// What one pipelined probe adds beyond the first round trip: its send() and the
    /// server's echo write (user-space turnarounds overlap with the link's work).
    static let pipelinedProbeSeconds = 20e-6
    /// Bytes a pipelined probe and its echo put on the link: the largest of the three
    /// transports' probes (UDP: 24-byte header + 28 bytes IP/UDP) each way.
    static let pipelinedProbeWireBytes = 2.0 * 52
    /// How long a pipelined UDP prober waits at most for the echoes of lost probes
    /// (the lower bound of its straggler wait, docs/protocol/udp.md).
    static let pipelinedStragglerSeconds = 1.0

    /// Set-up + handshake + probes + bulk, with the expected cost of losses.
    /// - handshake: two round trips, plus the cost of a lost packet times the chance
    ///   that one of its ~4 packets is lost;
    /// - probes: ping-pong: `rttProbes` round trips plus the expected cost of lost
    ///   probes; pipelined (`probeSeconds`): one round trip plus the probes'
    ///   serialisation, plus the straggler wait when a probe is likely lost;
    /// - bulk: the payload's bytes at the rate the link carries after loss (its rate
    ///   times (1 - loss), not the PHY rate) plus a per-message cost. The transports
    ///   fill the emulated link: at 18-23 % loss, 32 MB transfers reached 0.5-1.0 of
    ///   rate x (1 - loss) (tcp 0.9, udp 1.1, quic 0.7; matrices/edge-large.json); a reliable
    ///   transport's recovery stretches that by 1 + its `CostHints.lossRecovery` x loss^2.
    /// - the app loop (`appLoop`): a message or probe goes no faster than the slower
    ///   end's time per message, so probes and messages take at least that each.
    public static func model(
        payload: Payload?, rttProbes: Int, link: ResolvedLink, rttMethod: RTTMethod = .pingPong,
        spacingNanos: UInt64 = 0, appLoop: AppLoop = .none, hints: CostHints = CostHints()
    ) -> Double {
        let app = Double(max(appLoop.sendNanos, appLoop.receiveNanos)) / 1e9
        let rtt = roundTripSeconds(link)
        let loss = min(max((link.lossPercent ?? 0) / 100, 0), 0.95)
        let lostHandshake = 1 - pow1(1 - loss, 4)
        let handshake = handshakeRoundTrips * rtt + lostHandshake * handshakeLossSeconds
        let probes =
            probeSeconds(rttProbes, method: rttMethod, link: link, spacingNanos: spacingNanos, waitsForLost: hints.waitsForLostProbes)
            + Double(rttProbes) * app
        return setUpSeconds + handshake + probes + bulkSeconds(payload: payload, link: link, appLoop: appLoop, hints: hints)
    }

    /// The bulk phase of `model`: the payload's bytes at the usable rate, with the
    /// transport's loss recovery, the sender's per-message cost and the app loop's.
    public static func bulkSeconds(payload: Payload?, link: ResolvedLink, appLoop: AppLoop = .none, hints: CostHints = CostHints())
        -> Double
    {
        guard let payload else { return 0 }
        let app = Double(max(appLoop.sendNanos, appLoop.receiveNanos)) / 1e9
        let loss = min(max((link.lossPercent ?? 0) / 100, 0), 0.95)
        let bytes = Double(payload.count) * Double(payload.size)
        let usable = (link.rateMbps ?? 5_000) * 1e6 / 8 * (1 - loss) * hints.bulkRateShare
        let sender = Double(payload.count) * perMessageSeconds
        var wire = bytes / usable * (1 + hints.lossRecovery * loss * loss) + slowStartSeconds(bytes, usable: usable, link: link, hints: hints)
        // An unpaced sender whose excess the queue drops is done after its own time and one queue's drain.
        if hints.endsWhenSenderIsDone, let queue = link.queueBytes { wire = min(wire, sender + Double(queue) / usable) }
        return max(wire, Double(payload.count) * app) + sender
    }

    /// What slow start adds to a bulk phase: the round trips a window of
    /// `initialWindowBytes`, doubling each, takes to reach the bytes in flight that fill
    /// the link (its rate x a round trip) or the whole payload, less the time those bytes
    /// take at the full rate (counted already). A 4 MB transfer pays about 4 round trips
    /// of an availability-window link (30 ms each), a 92 MB one the same 0.1 s.
    static func slowStartSeconds(_ bytes: Double, usable: Double, link: ResolvedLink, hints: CostHints) -> Double {
        guard let initial = hints.initialWindowBytes, initial > 0 else { return 0 }
        let rtt = roundTripSeconds(link)
        let target = min(bytes, usable * rtt)
        var window = Double(initial), rounds = 0.0
        while window < target {
            window *= 2
            rounds += 1
        }
        return max(0, rounds * rtt - target / usable)
    }

    /// Seconds a workload other than the payload's bulk adds (docs/WORKLOADS.md): an
    /// isochronous flow lasts its frames x period; request-response pays a round trip
    /// and both messages on the link per `concurrency` transactions. Bulk (its payload
    /// is in `model`) adds nothing; bidir is counted as one direction, since the emulated
    /// link has a queue each way.
    static func workloadSeconds(_ w: WorkloadSpec, link: ResolvedLink) -> Double {
        switch w.kind {
        case .bulk: return 0
        case .isochronous(_, let period, let frames, _, _): return Double(frames) * Double(period) / 1e9
        case .requestResponse(let n, let a, let b, let c):
            let rtt = roundTripSeconds(link)
            let wire = Double(a + b) * 8 / ((link.rateMbps ?? 5_000) * 1e6)
            return Double(n) * (rtt + wire) / Double(c)
        }
    }

    /// Seconds the idle RTT probes take. Ping-pong pays a round trip per probe (and the
    /// expected cost of a lost one); pipelined probes are all in flight at once, so they
    /// cost one round trip plus their serialisation on the link and at the hosts, plus
    /// the straggler wait of an unreliable transport when one of them is likely lost.
    /// With `spacingNanos` (`rttProbeIntervalMs`) the sends alone take (n - 1) x the
    /// spacing when that is longer than their serialisation: the field study's 1 000
    /// probes at 1 ms take about a second.
    /// Only a transport that waits for lost probes (`waitsForLost`: udp's straggler wait)
    /// pays for them; a reliable one retransmits within the round trips already counted.
    public static func probeSeconds(
        _ rttProbes: Int, method: RTTMethod, link: ResolvedLink, spacingNanos: UInt64 = 0, waitsForLost: Bool = true
    ) -> Double {
        guard rttProbes > 0 else { return 0 }
        let rtt = roundTripSeconds(link)
        let loss = min(max((link.lossPercent ?? 0) / 100, 0), 0.95)
        let lostProbe = 1 - pow1(1 - loss * probeLossShare, 2)
        switch method {
        case .pingPong:
            return Double(rttProbes) * (rtt + lostProbe * probeLossSeconds)
        case .pipelined, .sendLoop:
            let n = Double(rttProbes)
            let serialisation = n * pipelinedProbeWireBytes * 8 / ((link.rateMbps ?? 5_000) * 1e6) + n * pipelinedProbeSeconds
            // Chance that at least one of the n probes (or its echo) is lost.
            let anyLost = 1 - pow1(1 - lostProbe, min(rttProbes, 10_000))
            let spaced = (n - 1) * Double(spacingNanos) / 1e9
            return rtt + max(serialisation, spaced) + (waitsForLost ? anyLost * pipelinedStragglerSeconds : 0)
        }
    }

    /// Round trips one after another (ping-pong probes, a handshake's flights) wait
    /// longer than a lone one: each leaves with the answer to the one before, just as a
    /// window closes, and waits two whole windows, not 1.5 on average. Measured: ping-pong
    /// probes of matrices/modes.json and matrices/hypotheses.json on the `bulk` schedule
    /// took 32.76 ms (two 16.384 ms windows) against the lone probe's 26.6 (2026-12-02).
    static let backToBackWaitFactor = 2.0 / 1.5

    /// One round trip over `link`, among others back to back: twice its one-way delay,
    /// the hosts' turnarounds, and the wait its channel's timing adds
    /// (`PerformanceModeAdaptable.roundTripWaitSeconds`, a lone round trip's 24.6 ms on
    /// AWDL's availability windows, times `backToBackWaitFactor`), which the estimates of
    /// matrices on radio links had left out: quick.json ran 101.9 s against 29 estimated,
    /// 2026-11-29.
    static func roundTripSeconds(_ link: ResolvedLink) -> Double {
        2 * (link.delayMs ?? 0.05) / 1000 + probeTurnaroundSeconds
            + ((link.channel as? any PerformanceModeAdaptable)?.roundTripWaitSeconds ?? 0) * backToBackWaitFactor
    }

    /// x^n for small whole n, without Foundation.
    static func pow1(_ x: Double, _ n: Int) -> Double { (0..<n).reduce(1) { r, _ in r * x } }
}
