import Foundation
import Testing

@testable import PeerBenchAnalysis
@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

/// The measurement floor in `compare` and baselines (docs/COMPARE.md): a time difference
/// that does not clear the floor is never called a difference.
@Suite struct ComparisonFloorTests {
    /// tcp's loopback floor 0.03/0.06 ms, udp's 0.05/0.10 ms; no emulator, no clock cost.
    static let floor = ComparisonFloor(
        transports: [.init(label: "tcp", p50Ms: 0.03, p99Ms: 0.06), .init(label: "udp", p50Ms: 0.05, p99Ms: 0.10)],
        emulatorReleaseP50Ms: nil, emulatorReleaseP99Ms: nil, clockMs: 0)

    /// Six repetitions each, RTT p50 of udp `shift` ms above tcp's, fully separated (significant).
    static func records(shiftMs: Double) throws -> [Record] {
        var lines: [JSONValue] = []
        for rep in 1...6 {
            let step = Double(rep) * 1e-4
            lines.append(comparedRecord("tcp", rep: rep, mbps: 100 + Double(rep), p50: 1 + step))
        }
        for rep in 1...6 {
            let step = Double(rep) * 1e-4
            lines.append(comparedRecord("udp", rep: rep, mbps: 100 + Double(rep), p50: 1 + shiftMs + step))
        }
        return try typed(lines)
    }

    func pair(_ doc: ComparisonDocument, _ metric: String) throws -> ComparisonDocument.Pair {
        try #require(doc.scenarios.first?.pairs.first { $0.metric == metric })
    }

    @Test("a significant 0.02 ms RTT shift within a 0.05 ms floor is no difference (below_floor); without the floor it is one")
    func smallShiftIsBelowTheFloor() throws {
        let without = try ComparisonDocument(records: Self.records(shiftMs: 0.02))
        let bare = try pair(without, "rtt_p50_ms")
        #expect(bare.verdict == .better, "the test alone: tcp's RTT is lower")
        #expect(bare.pAdjusted! < 0.01)
        #expect(bare.floorMs == nil && bare.reason == nil)

        let doc = try ComparisonDocument(records: Self.records(shiftMs: 0.02), floor: Self.floor)
        let p = try pair(doc, "rtt_p50_ms")
        #expect(p.verdict == .noDifference)
        #expect(p.reason == "below_floor")
        #expect(p.floorMs == 0.05, "the larger of the two p50 floors")
        #expect(p.pAdjusted == bare.pAdjusted, "the test is reported unchanged")
        #expect(abs(p.shift! + 0.02) < 1e-9)
        // RTT p99 (0.04 ms apart) against the p99 floor, 0.10 ms.
        let p99 = try pair(doc, "rtt_p99_ms")
        #expect(p99.verdict == .noDifference && p99.reason == "below_floor" && p99.floorMs == 0.10)
        // Throughput has no floor: the difference-free pair stays as the test says.
        let tp = try pair(doc, "throughput_mbps")
        #expect(tp.floorMs == nil && tp.reason == nil && tp.verdict == .noDifference)
        #expect(doc.measurementFloor == Self.floor)
    }

    @Test("a 5 ms RTT shift clears the 0.05 ms floor: still a difference, no reason")
    func largeShiftIsADifference() throws {
        let doc = try ComparisonDocument(records: Self.records(shiftMs: 5), floor: Self.floor)
        let p = try pair(doc, "rtt_p50_ms")
        #expect(p.verdict == .better)
        #expect(p.reason == nil)
        #expect(p.floorMs == 0.05)
        #expect(try pair(doc, "rtt_p99_ms").verdict == .better)
    }

    @Test("the rule: the shift's whole interval must lie beyond the floor; without an interval the shift itself")
    func exceedsRule() {
        #expect(!ComparisonFloor.exceeds(shift: 0.06, low: 0.04, high: 0.08, floor: 0.05), "interval reaches into the floor")
        #expect(ComparisonFloor.exceeds(shift: 0.06, low: 0.055, high: 0.08, floor: 0.05))
        #expect(ComparisonFloor.exceeds(shift: -0.06, low: -0.08, high: -0.055, floor: 0.05))
        #expect(!ComparisonFloor.exceeds(shift: 0.5, low: -0.01, high: 1, floor: 0.05))
        #expect(ComparisonFloor.exceeds(shift: 0.06, low: nil, high: nil, floor: 0.05))
        #expect(!ComparisonFloor.exceeds(shift: -0.02, low: nil, high: nil, floor: 0.05))
        #expect(!ComparisonFloor.exceeds(shift: nil, low: nil, high: nil, floor: 0.05))
    }

    @Test("a pair's floor: larger loopback floor at the metric's quantile + emulator release error + clock; none for non-time metrics")
    func floorComposition() {
        let f = ComparisonFloor(
            transports: [.init(label: "tcp", p50Ms: 0.03, p99Ms: 0.06), .init(label: "quic", p50Ms: 0.06, p99Ms: 0.5)],
            emulatorReleaseP50Ms: 0.035, emulatorReleaseP99Ms: 0.094, clockMs: 0.001)
        #expect(abs(f.floorMs(metric: "rtt_p50_ms", a: "tcp", b: "quic")! - 0.096) < 1e-12)
        #expect(abs(f.floorMs(metric: "rtt_p99_ms", a: "tcp", b: "quic")! - 0.595) < 1e-12)
        #expect(abs(f.floorMs(metric: "connect_ms", a: "tcp", b: "tcp")! - 0.066) < 1e-12)
        #expect(abs(f.floorMs(metric: "rtt_probe_ms", a: "tcp", b: "uwb")! - 0.066) < 1e-12, "uwb has no floor: tcp's")
        #expect(f.floorMs(metric: "jitter_ms", a: "uwb", b: "exec") == nil, "neither label measured")
        #expect(f.floorMs(metric: "throughput_mbps", a: "tcp", b: "quic") == nil)
        #expect(f.floorMs(metric: "loss_ratio", a: "tcp", b: "quic") == nil)
    }

    static func manifestFloor(tcpP50: Double, tcpP99: Double, release: (Int, Int)?) -> MeasurementFloor {
        MeasurementFloor(
            measuredAt: "2026-11-23T04:00:00Z",
            clock: .init(
                source: "CLOCK_MONOTONIC", resolutionNanos: 1, readDeltaMinNanos: 20, readDeltaP50Nanos: 30,
                readDeltaP99Nanos: 100, reads: 1000),
            loopbackRTT: [
                .init(label: "tcp", plugin: "tcp", probes: 200, p50Ms: tcpP50, p99Ms: tcpP99, maxMs: 1, error: nil),
                .init(label: "uwb", plugin: "uwb", probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil, error: "not measured"),
            ],
            emulatorReleaseError: release.map { .init(packets: 500, p50Micros: $0.0, p99Micros: $0.1, calibration: "burst") })
    }

    @Test("runs merged from machines with different floors: the larger of each figure, and a note saying so")
    func differentFloorsUseTheLarger() throws {
        let f = try #require(
            ComparisonFloor([
                ("a", Self.manifestFloor(tcpP50: 0.03, tcpP99: 0.2, release: (35, 94))),
                ("b", Self.manifestFloor(tcpP50: 0.05, tcpP99: 0.1, release: (20, 150))),
            ]))
        #expect(f.transports == [.init(label: "tcp", p50Ms: 0.05, p99Ms: 0.2)], "uwb's unmeasured floor is left out")
        #expect(f.emulatorReleaseP50Ms == 0.035 && f.emulatorReleaseP99Ms == 0.15)
        #expect(f.clockMs == 0.0001)
        #expect(f.runs == 2)
        #expect(f.notes.count == 1 && f.notes[0].contains("different floors") && f.notes[0].contains("larger"))
        let same = try #require(
            ComparisonFloor([
                ("a", Self.manifestFloor(tcpP50: 0.03, tcpP99: 0.2, release: nil)),
                ("b", Self.manifestFloor(tcpP50: 0.03, tcpP99: 0.2, release: nil)),
            ]))
        #expect(same.notes.isEmpty && same.emulatorReleaseP50Ms == nil)
        #expect(ComparisonFloor([]) == nil)
    }

    @Test("baseline: a significant 0.02 ms RTT change within the floor is unchanged (below_floor); a 5 ms one regressed")
    func baselineAppliesTheFloor() throws {
        func data(_ p50: Double, floor: ComparisonFloor) throws -> ComparisonData {
            var d = ComparisonData()
            for rep in 1...6 {
                let step = Double(rep) * 1e-4
                let r = try Record(json: comparedRecord("tcp", rep: rep, mbps: 100, p50: p50 + step))
                try d.add(ComparedRecord(r), source: "record \(rep)")
            }
            d.floor = floor
            return d
        }
        let oldFloor = ComparisonFloor(
            transports: [.init(label: "tcp", p50Ms: 0.05, p99Ms: 0.1)], emulatorReleaseP50Ms: nil, emulatorReleaseP99Ms: nil, clockMs: 0)
        let newFloor = ComparisonFloor(
            transports: [.init(label: "tcp", p50Ms: 0.03, p99Ms: 0.2)], emulatorReleaseP50Ms: nil, emulatorReleaseP99Ms: nil, clockMs: 0)
        let small = BaselineDocument.build(old: ("old", try data(1, floor: oldFloor)), new: ("new", try data(1.02, floor: newFloor)), alpha: 0.05)
        let c = try #require(small.scenarios.first?.changes.first { $0.metric == "rtt_p50_ms" })
        #expect(c.verdict == .unchanged && c.reason == "below_floor" && c.floorMs == 0.05, "the larger of the two runs' p50 floors")
        #expect(small.measurementFloor?.transports == [.init(label: "tcp", p50Ms: 0.05, p99Ms: 0.2)])
        #expect(small.measurementFloor?.notes.contains { $0.contains("different floors") } == true)
        let large = BaselineDocument.build(old: ("old", try data(1, floor: oldFloor)), new: ("new", try data(6, floor: newFloor)), alpha: 0.05)
        let r = try #require(large.scenarios.first?.changes.first { $0.metric == "rtt_p50_ms" })
        #expect(r.verdict == .regressed && r.reason == nil)
        #expect(!large.applying(.percent(100)).past(.regressed).isEmpty)
        #expect(small.applying(.percent(0)).past(.regressed).isEmpty, "a change below the floor never fails --fail-on-regression")
    }
}
