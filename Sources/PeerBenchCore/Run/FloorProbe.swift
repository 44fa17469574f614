import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Measures the run's `measurement_floor` (docs/RECORDS.md) before the first cell:
/// the clock, each transport's loopback RTT, and on an emulated link the emulator's
/// release-time error (`releaseError`, which the testbed's wiring provides: the core
/// knows no emulator). Takes a second or two per transport; a transport that cannot be
/// probed is recorded with its error.
struct FloorProbe {
    var registry: PluginRegistry
    var probing: RunRequest.FloorProbing
    var releaseError: (@Sendable () async -> MeasurementFloor.ReleaseError?)?

    func measure(_ plan: RunPlan, stopped: @escaping @Sendable () -> Bool) async -> MeasurementFloor {
        let load = MeasurementFloor.readLoadAverage()
        let clock = MeasurementFloor.measureClock()
        var rtt: [MeasurementFloor.TransportFloor] = []
        for spec in plan.matrix.transports {
            if stopped() {
                rtt.append(
                    .init(
                        label: spec.label, plugin: spec.plugin, probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil,
                        error: "not measured: the run was stopped"))
            } else {
                switch probing {
                case .childProcess(let arguments): rtt.append(await Self.probeInSubprocess(spec, arguments: arguments, stopped: stopped))
                case .inProcess(let seconds): rtt.append(await MeasurementFloor.measureLoopback(spec, registry: registry, timeoutSeconds: seconds))
                }
            }
        }
        var release: MeasurementFloor.ReleaseError?
        if let releaseError, !stopped() { release = await releaseError() }
        return MeasurementFloor(
            measuredAt: Manifest.rfc3339(Date()), clock: clock, loopbackRTT: rtt, emulatorReleaseError: release,
            loadAverage: load, cpusAllowed: MeasurementFloor.readCPUsAllowed())
    }

    /// Longest a transport's loopback probe may take: 200 probes take well under a
    /// second on loopback, so only a plugin that hangs reaches this.
    static let probeLimitSeconds = 5.0

    /// One transport's loopback floor from this executable run with `arguments`
    /// (`peerbench floor-probe`) in a child process: plugins run isolated here as in
    /// the cells, so a crash or hang is an `error`.
    static func probeInSubprocess(
        _ spec: TransportSpec, arguments: [String],
        stopped: @escaping @Sendable () -> Bool
    ) async -> MeasurementFloor.TransportFloor {
        func failed(_ why: String) -> MeasurementFloor.TransportFloor {
            .init(label: spec.label, plugin: spec.plugin, probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil, error: why)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: WorkerProcess.currentExecutable)
        p.arguments = arguments
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
            return failed(
                "the probe process died of signal \(p.terminationStatus) (the plugin crashed, hung past \(Int(probeLimitSeconds)) s, or the run was stopped)"
            )
        }
        do {
            return try JSONCoding.decode(MeasurementFloor.TransportFloor.self, from: Array(reply))
        } catch {
            return failed("the probe process exited with status \(p.terminationStatus) without a result")
        }
    }
}
