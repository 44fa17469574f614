import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

/// The upload's bulk phase (docs/protocol/quic.md): the messages handed to streams by
/// `BulkSchedule`, DONE, loaded probes on the control stream or a separate flow, and
/// the event loop until the REPORT.
extension QUICClient {
    /// The bulk phase: `count` messages of `block` handed to streams, DONE, then the
    /// event loop until the REPORT (and the echoes of loaded probes still in flight).
    /// Sets the bulk time and the loaded RTTs; returns how many loaded probes were
    /// sent, nil without loaded probes.
    /// With `reconnect`: `offset` messages the server already holds (this connection
    /// sends the rest), `bulkStart` the first connection's bulk clock, and `handed`
    /// tells, when the connection fails, how many of its messages went to ngtcp2.
    func bulkPhase(
        count: Int, size: Int, block: MessageBlock, askSpan: Bool, on connection: QUICConnection,
        stream control: Int64, offset: Int = 0, bulkStart: UInt64 = MonotonicClock.now(),
        handed: ((Int) -> Void)? = nil, into m: inout TransportMeasurement
    ) throws -> Int? {
        var bulk = BulkSchedule(count: count - offset, mode: config.streams, app: MessageSchedule(appLoop, start: bulkStart))
        var doneSent = false
        let separate = config.loadedRttProbes?.flow == .separate
        var loaded = LoadedProbeSchedule(separate ? nil : config.loadedRttProbes)
        loaded.begin(at: bulkStart)
        let prober =
            try separate && count > 0
            ? QUICSeparateFlow(
                client: QUICClient(
                    config: config, server: server, token: token, deadline: deadline,
                    cancellation: cancellation, serviceClass: serviceClass),
                probes: config.loadedRttProbes!) : nil
        defer { _ = try? prober?.finish() }
        var bulkNanos: UInt64?
        // A probe queued after this turn's service pass: turn again at once so it leaves now.
        var probeQueued = false
        do {
            try pump(
                "bulk phase",
                wakeIn: {
                    if probeQueued {
                        probeQueued = false
                        return 0
                    }
                    let probe = loaded.intervalNanos == nil || bulkNanos != nil ? nil : loaded.nanosUntilDue()
                    guard !doneSent, let message = bulk.nanosUntilDue(now: MonotonicClock.now()) else { return probe }
                    return min(message, probe ?? .max)
                }
            ) {
                if !doneSent {
                    bulk.advance(connection: connection, block: block, now: MonotonicClock.now())
                    if bulk.isHandedOver {
                        connection.sender(control).append(
                            copying: FrameEncoder.encode(
                                .done(
                                    DoneBody(
                                        messages: UInt64(count), bytes: UInt64(count) * UInt64(size), streams: UInt64(bulk.streamsUsed),
                                        flags: askSpan ? DoneBody.flagReceiverSpan : nil))))
                        doneSent = true
                    }
                }
                if self.log.report == nil {
                    // Loaded probes on the control stream, beside the bulk stream(s): until the REPORT.
                    if let probe = Self.queueDueProbe(&loaded, on: connection, stream: control) {
                        log.loadedSent.append(probe)
                        probeQueued = true
                    }
                    return false
                }
                if bulkNanos == nil { bulkNanos = MonotonicClock.now() - bulkStart }
                // After the REPORT: the echoes of loaded probes still in flight (a server that
                // closed once the REPORT was acknowledged leaves the rest unanswered).
                return connection.isFinished || log.loadedSent.allSatisfy { log.pongs[$0.seq] != nil }
            }
        } catch {
            handed?(bulk.handed(blockSize: block.bytes.count))
            throw error
        }
        m.bulkNanos = bulkNanos ?? (MonotonicClock.now() - bulkStart)
        if loaded.intervalNanos != nil {
            m.rttLoadedNanos = log.loadedSent.compactMap { p in log.pongs[p.seq].map { $0 - p.at } }
        }
        if let prober {
            let result = try prober.finish()
            m.rttLoadedNanos = result.rtts
            return result.sent
        }
        return loaded.intervalNanos != nil ? log.loadedSent.count : nil
    }
}
