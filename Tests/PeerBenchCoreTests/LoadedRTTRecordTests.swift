import Foundation
import PeerBenchTestbed
import Testing

@testable import PeerBenchCore
@testable import PeerBenchPlugin

/// `rtt_loaded_ms` and `responsiveness_rpm` come from the loaded probes alone, and
/// records without them (older runs, probes off) read as null.
@Suite struct LoadedRTTRecordTests {
    func record(_ m: TransportMeasurement) -> Record {
        let t = Record.template
        var cell = Cell(
            id: "c", repetition: 1, seed: 1,
            transport: TransportSpec(
                plugin: "tcp", label: "tcp", options: nil, effectiveOptions: .null,
                usesPayload: true, index: 0),
            environment: EnvironmentSpec(name: "lab", kind: .builtIn, json: .null), distance: .meters(1), payload: Payload(count: 1, size: 1))
        cell.repetition = 1
        return Record(
            runID: "r", cell: cell, link: ResolvedLink(environment: "lab", distanceMeters: 1, distanceLabel: "1"), linkMode: t.link.mode,
            counters: nil, status: .ok, error: nil, startedAt: Date(timeIntervalSince1970: 0), totalSeconds: 1, measurement: m)
    }

    @Test func loadedProbesGiveASecondSummaryAndTheResponsiveness() throws {
        var m = TransportMeasurement()
        m.rttNanos = [1_000_000, 1_000_000, 1_000_000]
        m.rttLoadedNanos = [40_000_000, 50_000_000, 400_000_000]
        let r = record(m)
        let loaded = try #require(r.rttLoadedMs)
        #expect(loaded.count == 3)
        #expect(abs(loaded.p50 - 50) < 0.1)
        #expect(abs(loaded.max - 400) < 0.5)
        #expect(abs((r.responsivenessRpm ?? 0) - 1_200) < 3, "60 000 / 50 ms")
        #expect(r.rttMs?.p50 != loaded.p50, "the idle summary is separate")
        let json = r.json
        #expect(json["rtt_loaded_ms"]?["count"] == 3)
        #expect(json["responsiveness_rpm"]?.doubleValue != nil)
        #expect(RecordsCSV.columns.contains("rtt_loaded_ms.p99") && RecordsCSV.columns.contains("responsiveness_rpm"))
    }

    @Test func withoutLoadedProbesBothAreNullAndOldLinesStillRead() throws {
        var m = TransportMeasurement()
        m.rttNanos = [1_000_000]
        let r = record(m)
        #expect(r.rttLoadedMs == nil && r.responsivenessRpm == nil)
        var o = try #require(r.json.objectValue)
        #expect(o["rtt_loaded_ms"] == .null && o["responsiveness_rpm"] == .null)
        o["rtt_loaded_ms"] = nil
        o["responsiveness_rpm"] = nil
        let back = try Record(json: .object(o))
        #expect(back.rttLoadedMs == nil && back.rttMs == r.rttMs)
    }
}
