import Foundation
import LinkEmulation
import PeerBenchCore
import UDPTransport

/// Measures the run's `measurement_floor` (docs/RECORDS.md) before the first cell:
/// the clock, each transport's loopback RTT, and on an emulated link the emulator's
/// release-time error during a short paced UDP burst. Takes a second or two per
/// transport; a transport that cannot be probed is recorded with its error.
enum FloorProbe {
    /// The calibration burst: 1 000 datagrams of 1 200 bytes paced at 20 Mbit/s
    /// (0.5 s) over a 50 Mbit/s, 5 ms link — busy, never congested.
    static let calibration = "udp 1000 x 1200 B paced at 20 Mbit/s over 50 Mbit/s, 5 ms one way, MTU 1500"

    static func measure(plan: RunPlan, registry: PluginRegistry, testbed: any Testbed, quiet: Bool) async -> MeasurementFloor {
        if !quiet { Terminal.err("peerbench: measuring the measurement floor (clock, loopback RTT per transport\(testbed is EmulatedTestbed ? ", emulator timing" : ""))") }
        let clock = MeasurementFloor.measureClock()
        var rtt: [MeasurementFloor.TransportFloor] = []
        for spec in plan.matrix.transports {
            rtt.append(await MeasurementFloor.measureLoopback(spec, registry: registry))
        }
        var release: MeasurementFloor.ReleaseError?
        if let emulated = testbed as? EmulatedTestbed { release = try? await emulatorReleaseError(emulated) }
        return MeasurementFloor(measuredAt: Manifest.rfc3339(Date()), clock: clock, loopbackRTT: rtt, emulatorReleaseError: release)
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
