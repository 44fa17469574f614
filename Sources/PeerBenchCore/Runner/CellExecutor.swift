import Foundation
public import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed

/// Where a cell's plugin code runs.
public enum Isolation: String, Sendable, CaseIterable {
    /// In a worker process supervised by the runner: a crash (trap, segfault) or a
    /// plugin that ignores its deadline costs that cell only. The default.
    case process
    /// In the runner's own process: no start-up cost, but a crash ends the run.
    case none
}

/// Runs one cell end to end: configure the link, run the plugin's server and client
/// (in this process or in the worker), enforce the deadline, and turn whatever
/// happened into a record.
public struct CellExecutor: Sendable {
    public var registry: PluginRegistry
    public var testbed: any Testbed
    public var rttProbes: Int
    /// How the probes are sent (matrix key `rttMethod`).
    public var rttMethod: RTTMethod
    /// Pipelined probes: nanoseconds between sends (matrix key `rttProbeIntervalMs`).
    public var rttProbeSpacingNanos: UInt64
    /// The cells that probe (matrix key `rttPayloads`); nil = every cell. A cell left
    /// out is sent with 0 probes, so the worker and a remote peer need no new field.
    public var rttPayloads: RTTPayloadSelection?
    /// The application's time per message at each end (matrix key `appLoop`).
    public var appLoop: AppLoop
    public var timeoutSeconds: Double
    public var logger: Logger
    /// Runs the plugin part when set (process isolation); nil runs it in this process.
    public var worker: WorkerProcess?
    /// Fired by an interruption: stops the running cell at once.
    public var stopper: CellStopper?

    public init(
        registry: PluginRegistry, testbed: any Testbed, rttProbes: Int, timeoutSeconds: Double, logger: Logger,
        worker: WorkerProcess? = nil, stopper: CellStopper? = nil, rttMethod: RTTMethod = .pingPong,
        rttProbeSpacingNanos: UInt64 = 0, rttPayloads: RTTPayloadSelection? = nil, appLoop: AppLoop = .none
    ) {
        self.rttProbeSpacingNanos = rttProbeSpacingNanos
        self.appLoop = appLoop
        self.rttPayloads = rttPayloads
        self.registry = registry
        self.testbed = testbed
        self.rttProbes = rttProbes
        self.rttMethod = rttMethod
        self.timeoutSeconds = timeoutSeconds
        self.logger = logger
        self.worker = worker
        self.stopper = stopper
    }

    /// Runs `cell` over `link` and returns its record. Never throws: every failure
    /// becomes a record with status `failed` or `timeout` and the error's text.
    public func run(_ cell: Cell, link: ResolvedLink, runID: String) async -> Record {
        let link = link.adapted(to: cell.transport.effectiveWifi)
        let startedAt = Date()
        let t0 = MonotonicClock.now()
        var cross: Record.CrossTraffic?
        func record(_ status: CellStatus, _ error: String?, _ m: TransportMeasurement? = nil, counters: LinkCounters? = nil) -> Record {
            makeRecord(
                cell, link: link, runID: runID, status: status, error: error, m, counters: counters, startedAt: startedAt,
                totalSeconds: Double(MonotonicClock.elapsed(since: t0)) / 1e9, cross: cross)
        }
        guard link.connected else {
            var r = record(
                .failed,
                "no radio link at \(cell.distance.label) m in \(link.environment)"
                    + (link.snrDb.map { String(format: " (median SNR %.1f dB is below the MCS 0 threshold)", $0) } ?? "")
                    + "; cell not run")
            if let e = link.scenario { r.scenario = Record.Scenario(name: e.name, kind: e.kind) }
            return r
        }
        var linkStart: UInt64?
        let outcome: PluginSession.Outcome
        (outcome, cross) = await perform(cell, link: link, t0: t0, linkStart: &linkStart)
        let endedAt = MonotonicClock.now()
        let counters = testbed.counters()
        var r =
            switch outcome {
            case .measured(let m): record(m.status, m.error, m, counters: counters)
            case .failed(let e), .harnessFailed(let e): record(.failed, e, counters: counters)
            case .timedOut(let e): record(.timeout, e, counters: counters)
            }
        if let event = link.scenario {
            applyScenario(
                event, to: &r, cell: cell, counters: counters, linkStart: linkStart, endedAt: endedAt,
                transportsOwn: outcome.isTransportsOwn && stopper?.hasFired != true)
        }
        return r
    }

    /// The record of `cell` as it ended: the testbed's and the Wi-Fi settings' sections
    /// filled in, the competing flow's figures when it had one.
    func makeRecord(
        _ cell: Cell, link: ResolvedLink, runID: String, status: CellStatus, error: String?, _ m: TransportMeasurement?,
        counters: LinkCounters?, startedAt: Date, totalSeconds: Double, cross: Record.CrossTraffic?
    ) -> Record {
        var r = Record(
            runID: runID, cell: cell, link: link, linkMode: testbed.mode, counters: counters, status: status, error: error,
            startedAt: startedAt, totalSeconds: totalSeconds, measurement: m)
        testbed.annotate(&r.link)
        r.fillWifi(cell.transport.effectiveWifi)
        r.fillEnergy(link: link, mode: cell.transport.effectiveWifi.performanceMode, counters: counters, seconds: r.totalSeconds)
        if let cross { r.crossTraffic = cross }
        return r
    }

    /// Sets up the link, starts the cell's competing flow (if any), runs the plugin part
    /// and stops the flow again. `linkStart` is set when the link is up: 0 of the scenario's clock.
    private func perform(_ cell: Cell, link: ResolvedLink, t0: UInt64, linkStart: inout UInt64?) async -> (
        PluginSession.Outcome, Record.CrossTraffic?
    ) {
        // The testbed (namespaces, emulator threads, counters) always lives here, in the
        // runner; only the plugin's server and client move into the worker.
        let testbed = self.testbed
        let endpoints: (client: Endpoint, server: Endpoint)
        do {
            endpoints = try await withDeadline(seconds: timeoutSeconds, onTimeout: {}) {
                try await testbed.configure(link, seed: cell.seed)
            }
        } catch let e as DeadlineExceeded {
            return (.timedOut("setting up the link: \(e.description)"), nil)
        } catch {
            return (.harnessFailed("setting up the link: \(error)"), nil)
        }
        linkStart = MonotonicClock.now()
        let flow: CrossTrafficFlow?
        do { flow = try await startCrossTraffic(cell, link: link, endpoints: endpoints) } catch {
            return (.harnessFailed("starting the cross traffic (\(cell.crossTraffic!)): \(error)"), nil)
        }
        let outcome = await runPluginPart(cell, link: link, endpoints: endpoints, t0: t0)
        return (outcome, flow?.finish())
    }

    /// The plugin part: its server here (or on the peer, `--link remote`) and its client.
    func runPluginPart(
        _ cell: Cell, link: ResolvedLink, endpoints: (client: Endpoint, server: Endpoint),
        t0: UInt64
    ) async -> PluginSession.Outcome {
        var seed = CellContextSeed(
            cellID: cell.id, repetition: cell.repetition, seed: cell.seed, payload: cell.payload,
            rttProbes: RTTPayloadSelection.probes(rttProbes, payload: cell.payload, selection: rttPayloads), rttMethod: rttMethod,
            rttProbeSpacingNanos: rttProbeSpacingNanos)
        seed.workload = cell.workload
        seed.appLoop = appLoop
        guard let host = testbed.serverHost else {
            let remaining = max(0.001, timeoutSeconds - Double(MonotonicClock.elapsed(since: t0)) / 1e9)
            return await runPlugin(cell, seed: seed, link: link, endpoints: endpoints, source: .plugin, remaining: remaining)
        }
        return await runAgainstPeer(host, cell, seed: seed, link: link, endpoints: endpoints, t0: t0)
    }

    /// `--link remote`: the peer starts the server (under the same deadline), the client
    /// runs here or in the worker against its address and hello, then the peer's result
    /// decides whether the server side went well too — as `finish()` does locally.
    private func runAgainstPeer(
        _ host: any RemoteServerHost, _ cell: Cell, seed: CellContextSeed, link: ResolvedLink,
        endpoints: (client: Endpoint, server: Endpoint), t0: UInt64
    ) async -> PluginSession.Outcome {
        func left() -> Double { max(0.001, timeoutSeconds - Double(MonotonicClock.elapsed(since: t0)) / 1e9) }
        let server: any TransportServer
        do {
            let remaining = left()
            server = try await withDeadline(seconds: remaining, onTimeout: {}) {
                try await host.startServer(transport: cell.transport, cell: seed, link: link, timeoutSeconds: remaining)
            }
        } catch let e as DeadlineExceeded {
            return .timedOut("the peer did not start the server: \(e.description)")
        } catch {
            return .harnessFailed("the peer could not start the server: \(error)")
        }
        let started = StartedServer(address: server.address, hello: server.hello)
        let outcome = await runPlugin(cell, seed: seed, link: link, endpoints: endpoints, source: .started(started), remaining: left())
        guard case .measured = outcome else {
            // The peer ends the cell at its own deadline; its result is collected then.
            server.stop()
            return outcome
        }
        do {
            try await withDeadline(seconds: left() + cellGraceSeconds, onTimeout: { server.stop() }) { try await server.finish() }
            // The server side's CPU time is serve's to report.
            if case .measured(var m) = outcome, let cpu = server.cpuSeconds, m.cpuSeconds?.client != nil {
                m.cpuSeconds = EndPair(client: m.cpuSeconds?.client, server: cpu)
                return .measured(m)
            }
            return outcome
        } catch is DeadlineExceeded {
            return .timedOut("the peer's server did not report within \(JSONValue.format(timeoutSeconds)) s")
        } catch {
            return .failed("server on the peer: \(error)")
        }
    }

    /// The plugin part under `remaining` seconds, in this process or in the worker.
    private func runPlugin(
        _ cell: Cell, seed: CellContextSeed, link: ResolvedLink, endpoints: (client: Endpoint, server: Endpoint),
        source: ServerSource, remaining: Double
    ) async -> PluginSession.Outcome {
        guard let worker else {
            return await PluginSession(
                registry: registry, transport: cell.transport, cell: seed, timeoutSeconds: remaining,
                cellTimeoutSeconds: timeoutSeconds, logger: logger
            )
            .run(client: endpoints.client, server: endpoints.server, link: link, source: source, stopper: stopper)
        }
        stopper?.arm { worker.killNow() }
        defer { stopper?.disarm() }
        var started: StartedServer?
        if case .started(let s) = source { started = s }
        let request = CellRequest(
            transport: cell.transport, cell: seed, timeoutSeconds: remaining, cellTimeoutSeconds: timeoutSeconds, link: link,
            client: endpoints.client, server: endpoints.server, started: started)
        // The worker enforces the deadline and the grace itself (same code as in
        // process) and then reports; this outer limit, one more grace for that report,
        // only catches a worker that cannot: one whose process is stuck as a whole.
        switch await worker.run(request, hardTimeout: remaining + 2 * cellGraceSeconds) {
        case .outcome(let o):
            if case .timedOut = o {
                // A timed-out cell may have left threads blocked in the worker; start afresh.
                worker.killNow()
                worker.finish()
            }
            return o
        case .died(let how):
            return .harnessFailed(how)
        case .unresponsive:
            return .timedOut(
                "cell did not finish within \(JSONValue.format(timeoutSeconds)) s and did not stop when told; its worker process was killed")
        }
    }
}
