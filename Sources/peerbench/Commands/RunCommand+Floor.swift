import Foundation
import LinkEmulation
import PeerBenchCore
import PeerBenchPlugin
import UDPTransport

/// Measures the run's `measurement_floor` (docs/RECORDS.md) before the first cell:
/// the clock, each transport's loopback RTT, and on an emulated link the emulator's
/// release-time error during a short paced UDP burst. Takes a second or two per
/// transport; a transport that cannot be probed is recorded with its error.
enum FloorProbe {
    /// The calibration burst: 1 000 datagrams of 1 200 bytes paced at 20 Mbit/s
    /// (0.5 s) over a 50 Mbit/s, 5 ms link — busy, never congested.
    static let calibration = "udp 1000 x 1200 B paced at 20 Mbit/s over 50 Mbit/s, 5 ms one way, MTU 1500"

    static func measure(plan: RunPlan, testbed: any Testbed, quiet: Bool, stopped: @escaping @Sendable () -> Bool) async -> MeasurementFloor {
        if !quiet { Terminal.err("peerbench: measuring the measurement floor (clock, loopback RTT per transport\(testbed is EmulatedTestbed ? ", emulator timing" : ""))") }
        let clock = MeasurementFloor.measureClock()
        var rtt: [MeasurementFloor.TransportFloor] = []
        for spec in plan.matrix.transports {
            if stopped() {
                rtt.append(.init(label: spec.label, plugin: spec.plugin, probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil,
                                 error: "not measured: the run was stopped"))
            } else {
                rtt.append(await probeInSubprocess(spec, stopped: stopped))
            }
        }
        var release: MeasurementFloor.ReleaseError?
        if let emulated = testbed as? EmulatedTestbed, !stopped() { release = try? await emulatorReleaseError(emulated) }
        return MeasurementFloor(measuredAt: Manifest.rfc3339(Date()), clock: clock, loopbackRTT: rtt, emulatorReleaseError: release)
    }

    /// Longest a transport's loopback probe may take: 200 probes take well under a
    /// second on loopback, so only a plugin that hangs reaches this.
    static let probeLimitSeconds = 5.0

    /// One transport's loopback floor from `peerbench floor-probe` in a child process:
    /// plugins run isolated here as in the cells, so a crash or hang is an `error`.
    static func probeInSubprocess(_ spec: TransportSpec, stopped: @escaping @Sendable () -> Bool) async -> MeasurementFloor.TransportFloor {
        func failed(_ why: String) -> MeasurementFloor.TransportFloor {
            .init(label: spec.label, plugin: spec.plugin, probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil, error: why)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: WorkerProcess.currentExecutable)
        p.arguments = ["floor-probe"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in exited.signal() }
        do { try p.run() } catch { return failed("could not start the probe process: \(error)") }
        let request = (try? JSONCoding.encode(spec).compactText) ?? "{}"
        input.fileHandleForWriting.write(Data(request.utf8))
        try? input.fileHandleForWriting.close()
        // Read while waiting, so a full pipe cannot stall the child.
        let reply = await withCheckedContinuation { (c: CheckedContinuation<Data, Never>) in
            Thread {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                c.resume(returning: data)
            }.start()
            Thread {
                // A stop (SIGINT/SIGTERM to the run) ends the probe at once, as it would a cell.
                let limit = Date().addingTimeInterval(probeLimitSeconds)
                while exited.wait(timeout: .now() + 0.05) == .timedOut {
                    if stopped() || Date() > limit {
                        kill(p.processIdentifier, SIGKILL)
                        return
                    }
                }
            }.start()
        }
        p.waitUntilExit()
        if p.terminationReason == .uncaughtSignal {
            return failed("the probe process died of signal \(p.terminationStatus) (the plugin crashed, hung past \(Int(probeLimitSeconds)) s, or the run was stopped)")
        }
        do {
            return try JSONCoding.decode(MeasurementFloor.TransportFloor.self, from: Array(reply))
        } catch {
            return failed("the probe process exited with status \(p.terminationStatus) without a result")
        }
    }

    /// Runs the calibration burst through the emulator and reads how late it released
    /// each packet; nil when the burst could not run (the cells will say why).
    static func emulatorReleaseError(_ testbed: EmulatedTestbed) async throws -> MeasurementFloor.ReleaseError? {
        let endpoints = try testbed.configure(EmulatorParameters(delayNanos: 5_000_000, rateBitsPerSecond: 50e6, mtu: 1_500), seed: 1)
        var cell = CellContext.loopback(payload: Payload(count: 1_000, size: 1_200), rttProbes: 10, timeoutSeconds: 10)
        cell.client = endpoints.client
        cell.server = endpoints.server
        let plugin = UDPPlugin(UDPOptions(rateMbps: 20))
        let server = try await plugin.startServer(cell)
        do { _ = try await plugin.runClient(cell, server: server.address) } catch {
            server.stop()
            throw error
        }
        server.stop()
        guard let e = testbed.schedulingError(), e.count > 0,
              let p50 = e.percentileMicros(0.5), let p99 = e.percentileMicros(0.99) else { return nil }
        return MeasurementFloor.ReleaseError(packets: e.count, p50Micros: p50, p99Micros: p99, calibration: calibration)
    }
}
