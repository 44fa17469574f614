import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

@testable import UWBRanging

/// Every ranging update becomes a raw sample (samples.jsonl) that agrees with the
/// summary in `extra.uwb`.
@Suite struct UWBRangingSamplesTests {
    @Test func everyUpdateIsASampleMatchingTheSummary() async throws {
        var o = UWBOptions()
        o.durationSeconds = 1.5
        o.updateRateHz = 40
        let plugin = UWBPlugin(o)
        let cell = makeCell(payload: nil, seconds: 30, seed: 3, environment: "free-field", distance: 5)
        let server = try await plugin.startServer(cell)
        let started = MonotonicClock.now()
        let m = try await plugin.runClient(cell, server: server.address)
        let wall = MonotonicClock.elapsed(since: started)
        try await server.finish()
        let uwb = try #require(m.extra["uwb"]?.objectValue)
        let samples = try #require(m.ranging)
        #expect(samples.count == uwb["updates"]?.intValue)
        #expect(samples.count >= 40, "1.5 s at 40 Hz after start-up: \(samples.count) updates")
        // Time since run, increasing, within the cell (the 1.5 s timer may fire late
        // on a loaded machine, so the bound is the client's wall time).
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.tNanos < $1.tNanos })
        #expect(samples.last!.tNanos < wall)
        #expect(Double(samples.first { $0.distanceM != nil }!.tNanos) / 1e6 == uwb["first_range_ms"]?.doubleValue)
        let withDistance = samples.filter { $0.distanceM != nil }
        #expect(Double(withDistance.count) / Double(samples.count) == uwb["distance_availability"]?.doubleValue)
        #expect(Double(samples.count { $0.directionAvailable }) / Double(samples.count) == uwb["direction_availability"]?.doubleValue)
        for s in withDistance { #expect(abs(s.errorM! - (s.distanceM! - 5)) < 1e-9) }
        let mean = withDistance.map { $0.errorM! }.reduce(0, +) / Double(withDistance.count)
        #expect(abs(mean - (uwb["distance_error_m"]?["mean"]?.doubleValue ?? .nan)) < 1e-9)
    }
}
