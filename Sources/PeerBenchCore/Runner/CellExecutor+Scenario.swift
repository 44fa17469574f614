import PeerBenchPlugin
import PeerBenchTestbed

extension CellExecutor {
    /// Fills the record's `scenario` object and applies the ok-versus-failed rule: a
    /// cell whose connection died after the link was dead at least as long as the
    /// transport's configured dead-peer timeout did what its settings predict, so it is
    /// `ok` (its error text stays, saying how it died); any other death stays `failed`.
    /// Only the transport's own death qualifies (`transportsOwn`): a worker killed by any
    /// signal, a stop (SIGINT, SIGTERM), a link or competing flow that could not be set up
    /// end the cell whatever the transport would have done, so they stay `failed`.
    func applyScenario(
        _ event: ScenarioEvent, to record: inout Record, cell: Cell, counters: LinkCounters?, linkStart: UInt64?,
        endedAt: UInt64, transportsOwn: Bool
    ) {
        let figures = ScenarioFigures(event: event)
        func onLinkClock(_ t: UInt64) -> Double? { linkStart.map { Double(Int64(bitPattern: t &- $0)) / 1e9 } }
        let m = record.measurement
        let completed = m != nil && record.status != .failed && record.status != .timeout
        // The transport's own verdict when it reported one, else the moment the client
        // failed. A cell stopped at its deadline detected nothing: no time for it.
        let failedAt = m?.peerLostAtNanos.flatMap(onLinkClock) ?? (record.status == .failed ? onLinkClock(endedAt) : nil)
        // Re-made connections (`reconnect`) on the link clock, like the failure.
        let reconnects = m?.reconnects.map { events in
            events.compactMap { e in
                onLinkClock(e.lostAtNanos).flatMap { lost in
                    onLinkClock(e.resumedAtNanos).map {
                        ScenarioFigures.Reconnect(lostAtSeconds: lost, resumedAtSeconds: $0, resentBytes: e.resentBytes)
                    }
                }
            }
        }
        let ending = ScenarioFigures.Ending(
            completed: completed && m?.peerLostAtNanos == nil, failedAtSeconds: failedAt, reconnects: reconnects,
            resumed: m?.resumed, duplicates: m?.reconnects == nil ? nil : m?.delivery?.duplicated,
            migrations: m?.migrations)
        var scenario = figures.figures(receiver: m?.bulkSeries, delivery: counters?.delivery, ending: ending)
        if !completed || m?.peerLostAtNanos != nil {
            scenario.survived = false
        }
        record.scenario = scenario
        if record.status == .failed, transportsOwn,
            figures.deathIsExpected(deadPeerTimeoutSeconds: deadPeerTimeout(cell), failedAtSeconds: failedAt)
        {
            record.status = .ok
        }
    }

    /// The cell's transport's dead-peer timeout as its options configure it.
    func deadPeerTimeout(_ cell: Cell) -> Double? {
        (try? registry.make(cell.transport.plugin, options: cell.transport.options, path: .root))?.0.deadPeerTimeoutSeconds
    }
}
