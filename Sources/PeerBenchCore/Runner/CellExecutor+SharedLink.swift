import Foundation
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

extension CellExecutor {
    /// Matrix key `transportsAtOnce`: runs `cells` — one block's transports (same
    /// repetition, environment, distance, payload) — at the same time over ONE link:
    /// the link is configured once (one namespace pair, one emulator, seeded with the
    /// first cell's seed), the block's competing flow (if any) starts once, then every
    /// transport's plugin part runs concurrently on the same endpoints (each server on
    /// a port of its own). Returns one record per cell, in the order of `cells`, each
    /// saying with whom it shared the link (`shared_link_with`).
    ///
    /// What the records share: `started_at` (the block's link set-up) and the link
    /// counters (they count every transport's packets: one emulator). What is each
    /// cell's own: its measurement, status and `total_seconds` (from the block's start
    /// to the end of this transport's plugin part).
    ///
    /// `workers[i]` runs cell i's plugin part (process isolation: one worker process
    /// per concurrent transport, since a worker runs one cell at a time); nil entries
    /// run it in this process. A block of one cell is an ordinary `run`.
    func runTogether(_ cells: [Cell], link resolved: ResolvedLink, runID: String, workers: [WorkerProcess?]) async -> [Record] {
        precondition(!cells.isEmpty && workers.count == cells.count)
        guard cells.count > 1 else {
            var solo = self
            solo.worker = workers[0]
            return [await solo.run(cells[0], link: resolved, runID: runID)]
        }
        // The loader refuses transports whose Wi-Fi modes differ: one adaptation fits all.
        let block = SharedLinkBlock(executor: self, cells: cells, link: resolved.adapted(to: cells[0].transport.effectiveWifi), runID: runID)
        let link = block.link
        guard link.connected else {
            let why =
                "no radio link at \(cells[0].distance.label) m in \(link.environment)"
                + (link.snrDb.map { String(format: " (median SNR %.1f dB is below the MCS 0 threshold)", $0) } ?? "") + "; cell not run"
            return block.records(block.allEnded(.failed(why)), counters: nil, cross: nil, linkStart: nil).map { r in
                var r = r
                // Nothing ran, so no scenario figures: name the scenario only, as `run` does.
                if let e = link.scenario { r.scenario = Record.Scenario(name: e.name, kind: e.kind) }
                return r
            }
        }
        let testbed = self.testbed
        let endpoints: (client: Endpoint, server: Endpoint)
        do {
            endpoints = try await withDeadline(seconds: timeoutSeconds, onTimeout: {}) {
                try await testbed.configure(link, seed: cells[0].seed)
            }
        } catch let e as DeadlineExceeded {
            return block.records(block.allEnded(.timedOut("setting up the link: \(e.description)")), counters: nil, cross: nil, linkStart: nil)
        } catch {
            return block.records(block.allEnded(.harnessFailed("setting up the link: \(error)")), counters: nil, cross: nil, linkStart: nil)
        }
        let linkStart = MonotonicClock.now()
        let flow: CrossTrafficFlow?
        do { flow = try await startCrossTraffic(cells[0], link: link, endpoints: endpoints) } catch {
            return block.records(
                block.allEnded(.harnessFailed("starting the cross traffic (\(cells[0].crossTraffic!)): \(error)")), counters: nil, cross: nil,
                linkStart: linkStart)
        }
        // One stop must reach every transport: the run's stopper can hold one action, so
        // each transport gets a stopper of its own and the run's fires them all.
        let stoppers = cells.map { _ in CellStopper() }
        stopper?.arm { for s in stoppers { s.fire() } }
        var ends = [(PluginSession.Outcome, UInt64)?](repeating: nil, count: cells.count)
        await withTaskGroup(of: (Int, PluginSession.Outcome, UInt64).self) { group in
            for (i, cell) in cells.enumerated() {
                var member = self
                member.worker = workers[i]
                member.stopper = stoppers[i]
                group.addTask {
                    let outcome = await member.runPluginPart(cell, link: link, endpoints: endpoints, t0: block.t0)
                    return (i, outcome, MonotonicClock.now())
                }
            }
            for await (i, outcome, endedAt) in group { ends[i] = (outcome, endedAt) }
        }
        stopper?.disarm()
        let cross = flow?.finish()
        return block.records(ends.map { $0! }, counters: testbed.counters(), cross: cross, linkStart: linkStart)
    }
}

/// One `transportsAtOnce` block in flight: its cells, the link they share, and when it
/// started; makes the block's records from each transport's outcome and end.
struct SharedLinkBlock {
    let executor: CellExecutor
    let cells: [Cell]
    let link: ResolvedLink
    let runID: String
    let labels: [String]
    let startedAt = Date()
    let t0 = MonotonicClock.now()

    init(executor: CellExecutor, cells: [Cell], link: ResolvedLink, runID: String) {
        self.executor = executor
        self.cells = cells
        self.link = link
        self.runID = runID
        labels = cells.map(\.transport.label)
    }

    /// Every cell with the same outcome, ended now (the block failed before its transports ran).
    func allEnded(_ outcome: PluginSession.Outcome) -> [(PluginSession.Outcome, UInt64)] {
        let now = MonotonicClock.now()
        return cells.map { _ in (outcome, now) }
    }

    /// One record per cell from its outcome and end instant, each naming the labels it shared the link with.
    func records(
        _ ends: [(PluginSession.Outcome, UInt64)], counters: LinkCounters?, cross: Record.CrossTraffic?,
        linkStart: UInt64?
    ) -> [Record] {
        zip(cells, ends).map { cell, end in
            let (outcome, endedAt) = end
            let seconds = Double(endedAt &- t0) / 1e9
            let (status, error, measurement): (CellStatus, String?, TransportMeasurement?) =
                switch outcome {
                case .measured(let m): (m.status, m.error, m)
                case .failed(let e), .harnessFailed(let e): (.failed, e, nil)
                case .timedOut(let e): (.timeout, e, nil)
                }
            var r = executor.makeRecord(
                cell, link: link, runID: runID, status: status, error: error, measurement, counters: counters,
                startedAt: startedAt, totalSeconds: seconds, cross: cross)
            if let event = link.scenario {
                executor.applyScenario(
                    event, to: &r, cell: cell, counters: counters, linkStart: linkStart, endedAt: endedAt,
                    transportsOwn: outcome.isTransportsOwn && executor.stopper?.hasFired != true)
            }
            r.sharedLinkWith = labels.filter { $0 != cell.transport.label }
            return r
        }
    }
}
