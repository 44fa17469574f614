import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import UWBRanging

/// The plugin end to end on loopback, as the runner drives it: startServer, runClient, finish.
@Suite(.timeLimit(.minutes(2))) struct UWBPluginTests {
    func runCell(_ options: UWBOptions, environment: String = "free-field", distance: Double?, seed: UInt64 = 3) async throws -> (
        TransportMeasurement, JSONObject
    ) {
        let plugin = UWBPlugin(options)
        let cell = makeCell(payload: nil, seconds: 30, seed: seed, environment: environment, distance: distance)
        let server = try await plugin.startServer(cell)
        let m: TransportMeasurement
        do {
            m = try await plugin.runClient(cell, server: server.address)
        } catch {
            server.stop()
            throw error
        }
        try await server.finish()
        return (m, m.extra["uwb"]?.objectValue ?? JSONObject())
    }

    func options(_ change: (inout UWBOptions) -> Void) -> UWBOptions {
        var o = UWBOptions()
        o.durationSeconds = 1.5
        o.updateRateHz = 40
        change(&o)
        return o
    }

    @Test func messageChannelFreeFieldRecordsEveryFigure() async throws {
        let (m, uwb) = try await runCell(options { _ in }, distance: 5)
        #expect(m.status == .ok)
        #expect(uwb["token_bytes"] == 264)
        let exchange = try #require(uwb["exchange_ms"]?.doubleValue)
        #expect(exchange > 0)
        #expect(Double(try #require(m.connectNanos)) / 1e6 == exchange)
        #expect(uwb["gatt_operations"] == .null)
        let first = try #require(uwb["first_range_ms"]?.doubleValue)
        #expect(first >= 200)
        let rate = try #require(uwb["update_rate_hz"]?.doubleValue)
        #expect(abs(rate - 40) / 40 < 0.10, "achieved \(rate) Hz")
        #expect(try #require(uwb["distance_availability"]?.doubleValue) > 0.9)
        #expect(try #require(uwb["direction_availability"]?.doubleValue) > 0.8)
        let err = try #require(uwb["distance_error_m"]?.objectValue)
        #expect(abs(try #require(err["mean"]?.doubleValue)) < 0.1)
        #expect(try #require(err["stddev"]?.doubleValue) < 0.25)
        #expect(try #require(err["p95"]?.doubleValue) < 0.5)
        #expect(uwb["removal_reason"] == .null)
        // The ranging rounds are the RTT probes, and their delivery is counted.
        #expect(m.rttNanos.count > 30 && m.probesSent! >= m.rttNanos.count)
        #expect(try #require(m.delivery).receivedMessages == m.rttNanos.count)
        #expect(m.bulkNanos == nil)
    }

    @Test func gattChannelCostsConnectionIntervals() async throws {
        let (m, uwb) = try await runCell(
            options {
                $0.tokenChannel = .gatt
                $0.durationSeconds = 0.8
            }, distance: 2)
        #expect(m.status == .ok)
        #expect(uwb["gatt_operations"] == 4, "ceil(264 / 182) = 2 each way")
        #expect(uwb["gatt_transactions"] == 6)
        #expect(try #require(uwb["exchange_ms"]?.doubleValue) >= 6 * 30 - 1)
    }

    @Test func beyondReachTimesOutWithoutADistance() async throws {
        let start = Date()
        let (m, uwb) = try await runCell(
            options {
                $0.durationSeconds = 20
                $0.removalTimeoutSeconds = 0.7
                $0.chip = .first
            },
            distance: 40)
        #expect(m.status == .ok)
        #expect(uwb["removal_reason"] == "timeout")
        #expect(uwb["distance_availability"] == 0)
        #expect(uwb["distance_error_m"] == .null)
        #expect(uwb["first_range_ms"] == .null)
        #expect(Date().timeIntervalSince(start) < 10, "the cell ends at the removal, not after the 20 s duration")
    }

    @Test func outsideTheFieldOfViewDistanceButNoDirection() async throws {
        let (_, uwb) = try await runCell(
            options {
                $0.bearingDegrees = 120
                $0.durationSeconds = 1
            }, distance: 3)
        #expect(try #require(uwb["distance_availability"]?.doubleValue) > 0.9)
        #expect(uwb["direction_availability"] == 0)
    }

    @Test func aWatchPeerNeverGivesDirection() async throws {
        let (_, uwb) = try await runCell(
            options {
                $0.peer = .watch
                $0.durationSeconds = 1
            }, distance: 3)
        #expect(try #require(uwb["distance_availability"]?.doubleValue) > 0.9)
        #expect(uwb["direction_availability"] == 0)
    }

    @Test func theServerEndsWhenTheClientClosesTheChannelEvenWithoutEndFrames() async throws {
        for kind in TokenChannelKind.allCases {
            let cell = makeCell(payload: nil, seconds: 30, seed: 3, environment: "free-field", distance: 3)
            let server = try await UWBPlugin(options { $0.tokenChannel = kind }).startServer(cell)
            let mine = try NearbySession(radioAddress: "127.0.0.1", seed: 1)
            let exchange = try await BlockingThread.run(name: "client") {
                let c = try connectTokenChannel(to: server.address)
                defer { c.close() }  // gone without a single ranging frame
                return try kind.channel(connectionIntervalMs: 7.5).exchange(
                    mine.discoveryToken.serialized(), over: c,
                    start: MonotonicClock.now(), deadline: cell.deadline)
            }
            #expect(try exchange.peerToken().deviceClass == .phone)
            let start = Date()
            try await server.finish()
            #expect(Date().timeIntervalSince(start) < 10, "\(kind): finished at the channel's close, not the 30 s cell deadline")
        }
    }

    @Test func theServerRejectsAForeignTokenWithInvalidConfiguration() async throws {
        let cell = makeCell(payload: nil, seconds: 30, seed: 3, environment: "free-field", distance: 3)
        let server = try await UWBPlugin(options { _ in }).startServer(cell)
        let wrongVersion = {
            var b = DiscoveryTokenTests.token().serialized()
            b[4] = 9
            return b
        }()
        let exchange = try await BlockingThread.run(name: "client") {
            let c = try connectTokenChannel(to: server.address)
            defer { c.close() }
            return try MessageTokenChannel().exchange(wrongVersion, over: c, start: MonotonicClock.now(), deadline: cell.deadline)
        }
        #expect(exchange.peerTokenBytes.count == 264, "the server still answered with its own token")
        do {
            try await server.finish()
            Issue.record("the server accepted a version 9 token")
        } catch {
            #expect("\(error)".contains("invalidConfiguration (-5888)"), "\(error)")
            #expect("\(error)".contains("unsupported version 9"), "\(error)")
        }
    }

    @Test func cellWithoutAGroundTruthDistanceFailsClearly() async throws {
        await #expect(throws: TransportError.self) { _ = try await runCell(options { _ in }, environment: "lab", distance: nil) }
    }

    @Test func optionsHaveDefaultsAndRejectMistakes() throws {
        let registry = PluginRegistry([UWBPlugin.self])
        let (_, effective) = try registry.make("uwb", options: nil, path: .root)
        #expect(effective["updateRateHz"] == 20)
        #expect(effective["tokenChannel"] == "message")
        #expect(effective["chip"] == "first")
        #expect(effective["gattConnectionIntervalMs"] == 30)
        #expect(UWBPlugin.descriptor.usesPayload == false)
        #expect(
            Set(UWBPlugin.descriptor.options.map(\.key)).isSuperset(of: [
                "updateRateHz", "durationSeconds", "tokenChannel", "peer", "bearingDegrees", "chip", "gattConnectionIntervalMs",
            ]))
        #expect(throws: InputError.self) { _ = try registry.make("uwb", options: ["tokenChannel": "bluetooth"], path: .root) }
        #expect(throws: InputError.self) { _ = try registry.make("uwb", options: ["updateRate": 10], path: .root) }
        #expect(throws: InputError.self) { _ = try registry.make("uwb", options: ["bearingDegrees": 270], path: .root) }
    }
}
