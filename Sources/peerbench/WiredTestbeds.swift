import Foundation
import LinkEmulation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed
import RemoteLink
import UDPTransport

/// The testbeds `run` can use: loopback, the emulated link (namespaces and the
/// emulator), and a remote peer running `peerbench serve`. Their messages go to the
/// terminal as they happen (`quiet` leaves out the notes).
struct WiredTestbeds: TestbedFactory {
    var registry: PluginRegistry
    /// With --link remote: `--peer` and `--psk-file`.
    var peer: String?
    var pskFile: String?
    var quiet: Bool

    func makeTestbed(_ mode: LinkMode, plan: RunPlan) async throws -> any Testbed {
        switch mode {
        case .none: return LoopbackTestbed()
        case .emulated:
            if EmulatedTestbed.hasNetAdmin {
                let removed = EmulatedTestbed.removeLeftovers()
                if !removed.isEmpty {
                    Terminal.err(
                        "peerbench: removed \(removed.count) network namespace\(removed.count == 1 ? "" : "s") left by runs that were killed: \(removed.joined(separator: ", "))"
                    )
                }
            }
            return try EmulatedTestbed()
        case .remote:
            guard let peer, let pskFile else {
                throw InputError(source: "--link", "link mode \"remote\" needs --peer HOST[:PORT] and --psk-file FILE")
            }
            return try await connect(peer: peer, pskFile: pskFile, plan: plan)
        }
    }

    /// Connects to the peer's `serve` and agrees on versions and plugins. Errors are
    /// the user's to act on: a wrong key, an unreachable peer, a plugin mismatch.
    func connect(peer: String, pskFile: String, plan: RunPlan) async throws -> RemoteTestbed {
        // `--peer auto[:NAME]`: the serve instance DNS-SD finds (docs/FIELD-GUIDE.md).
        let target = try Discovery.resolvePeerOption(peer)
        if target != peer && !quiet { Terminal.err("peerbench: found \(peer) by DNS-SD: \(target)") }
        let address = try RemotePeer.resolve(target, option: "--peer")
        let key = try RemoteTestbed.loadKey(pskFile)
        let needed = Array(Set(plan.matrix.transports.map(\.plugin))).sorted()
        let testbed = try await RemoteTestbed.connect(
            to: address, key: key, plugins: registry.names, needed: needed,
            software: "peerbench \(Manifest.peerbenchVersion)")
        if !quiet { Terminal.err("peerbench: connected to \(testbed.peerDescription)") }
        return testbed
    }

    /// A field session over a remote link pings the control channel while a question waits.
    func keepAlive(for testbed: any Testbed) -> (@Sendable () async -> Void)? {
        guard let remote = testbed as? RemoteTestbed else { return nil }
        return { await remote.keepAlive() }
    }

    func releaseErrorProbe(for testbed: any Testbed) -> (@Sendable () async -> MeasurementFloor.ReleaseError?)? {
        guard let emulated = testbed as? EmulatedTestbed else { return nil }
        return { (try? await EmulatorFloor.releaseError(emulated)) ?? nil }
    }
}

/// The emulator's part of the measurement floor: how late it releases packets.
enum EmulatorFloor {
    /// The calibration burst: 1 000 datagrams of 1 200 bytes paced at 20 Mbit/s
    /// (0.5 s) over a 50 Mbit/s, 5 ms link — busy, never congested.
    static let calibration = "udp 1000 x 1200 B paced at 20 Mbit/s over 50 Mbit/s, 5 ms one way, MTU 1500"

    /// Runs the calibration burst through the emulator and reads how late it released
    /// each packet; nil when the burst could not run (the cells will say why).
    static func releaseError(_ testbed: EmulatedTestbed) async throws -> MeasurementFloor.ReleaseError? {
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
            let p50 = e.percentileMicros(0.5), let p99 = e.percentileMicros(0.99)
        else { return nil }
        return MeasurementFloor.ReleaseError(packets: e.count, p50Micros: p50, p99Micros: p99, calibration: calibration)
    }
}
