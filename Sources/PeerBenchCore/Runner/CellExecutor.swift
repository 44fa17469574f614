import Foundation
public import Logging

/// Runs one cell end to end: configure the link, start the server, run the client,
/// enforce the deadline, and turn whatever happened into a record.
public struct CellExecutor: Sendable {
    public var registry: PluginRegistry
    public var testbed: any Testbed
    public var rttProbes: Int
    public var timeoutSeconds: Double
    public var logger: Logger

    public init(registry: PluginRegistry, testbed: any Testbed, rttProbes: Int, timeoutSeconds: Double, logger: Logger) {
        self.registry = registry
        self.testbed = testbed
        self.rttProbes = rttProbes
        self.timeoutSeconds = timeoutSeconds
        self.logger = logger
    }

    /// Runs `cell` over `link` and returns its record. Never throws: every failure
    /// becomes a record with status `failed` or `timeout` and the error's text.
    public func run(_ cell: Cell, link: ResolvedLink, runID: String) async -> Record {
        let startedAt = Date()
        let t0 = MonotonicClock.now()
        var record = Record(runID: runID, cell: cell, link: link, linkMode: testbed.mode, counters: nil, status: .failed,
                            error: nil, startedAt: startedAt, totalSeconds: 0, measurement: nil)
        defer { _ = record }
        guard link.connected else {
            record.error = "no radio link at \(cell.distance.label) m in \(link.environment)"
                + (link.snrDb.map { String(format: " (median SNR %.1f dB is below the MCS 0 threshold)", $0) } ?? "")
                + "; cell not run"
            return record
        }
        let cancellation = CellCancellation()
        let logger = self.logger
        let (registry, testbed, rttProbes) = (self.registry, self.testbed, self.rttProbes)
        let deadline = t0 + UInt64(timeoutSeconds * 1e9)
        let serverBox = ServerBox()
        do {
            let m = try await withDeadline(seconds: timeoutSeconds, onTimeout: {
                cancellation.cancel()
                serverBox.stop()
            }) {
                let endpoints = try await testbed.configure(link, seed: cell.seed)
                let (plugin, _) = try registry.make(cell.transport.plugin, options: cell.transport.options,
                                                    path: JSONPath.root.key("transports").index(cell.transport.index))
                var cellLogger = logger
                cellLogger[metadataKey: "cell"] = "\(cell.key)"
                let context = CellContext(cellID: cell.id, repetition: cell.repetition, seed: cell.seed, payload: cell.payload,
                                          rttProbes: rttProbes, deadline: deadline, link: link, client: endpoints.client,
                                          server: endpoints.server, cancellation: cancellation, logger: cellLogger)
                let server = try await plugin.startServer(context)
                serverBox.set(server)
                let measurement: TransportMeasurement
                do {
                    measurement = try await plugin.runClient(context, server: server.address)
                } catch {
                    server.stop()
                    try? await server.finish()
                    throw error
                }
                try await server.finish()
                return measurement
            }
            record.measurement = m
            record.status = m.status
            record.error = m.error
        } catch let e as DeadlineExceeded {
            record.status = .timeout
            record.error = e.description
        } catch {
            record.status = cancellation.isCancelled ? .timeout : .failed
            record.error = cancellation.isCancelled ? "cell did not finish within \(JSONValue.format(timeoutSeconds)) s (\(error))" : "\(error)"
        }
        serverBox.stop()
        record.counters = testbed.counters()
        record.totalSeconds = Double(MonotonicClock.elapsed(since: t0)) / 1e9
        return record
    }
}

/// Holds the running server so the deadline handler can stop it.
private final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var server: (any TransportServer)?
    private var stopped = false

    func set(_ s: any TransportServer) {
        let stopNow = lock.withLock { server = s; return stopped }
        if stopNow { s.stop() }
    }

    func stop() {
        let s = lock.withLock { stopped = true; return server }
        s?.stop()
    }
}
