import Foundation
import Testing

@testable import PeerBenchAnalysis
@testable import PeerBenchCore
@testable import PeerBenchJSON
@testable import PeerBenchPlugin

/// The JSON contracts of docs/COMPARE.md and docs/RECORDS.md write every key, an absent
/// value as `null`, through the one encoder (`JSONCoding`, keys in declared order; compare
/// and samples.jsonl sort them when written). The expected texts are the documents' exact
/// bytes, one populated and one mostly-nil value of each type; each decodes back with
/// `JSONCoding` and with Foundation's `JSONDecoder` (what docs/COMPARE.md offers programs),
/// and an older document without an optional key still decodes.
@Suite struct DocumentNullKeysTests {
    static func ordered<T: Encodable>(_ value: T) throws -> String { try JSONCoding.encode(value).compactText }

    /// The encoding as expected, and it decodes back to the value with both decoders.
    static func check<T: Codable & Equatable>(_ value: T, ordered: String) throws {
        let o = try Self.ordered(value)
        #expect(o == ordered)
        #expect(try JSONDecoder().decode(T.self, from: Data(o.utf8)) == value)
        #expect(try JSONCoding.decode(T.self, from: Array(o.utf8)) == value)
    }

    /// compare's document is written by its own writer (pretty, keys sorted): its text,
    /// made compact, as expected, and it decodes back with both decoders.
    static func checkText(_ doc: ComparisonDocument, sorted: String) throws {
        let text = try doc.jsonText()
        #expect(try JSONParser.parse(Array(text.utf8)).compactText == sorted)
        #expect(try JSONDecoder().decode(ComparisonDocument.self, from: Data(text.utf8)) == doc)
        #expect(try JSONCoding.decode(ComparisonDocument.self, from: Array(text.utf8)) == doc)
    }

    static let floor = ComparisonFloor(
        transports: [.init(label: "tcp", p50Ms: 0.03, p99Ms: 0.06)], emulatorReleaseP50Ms: 0.035,
        emulatorReleaseP99Ms: 0.094, clockMs: 0.001, runs: 2, notes: ["n"])
    static let summary = ComparisonDocument.MetricSummary(n: 6, median: 1.5, ciLow: 1.25, ciHigh: 1.75)
    static let emptySummary = ComparisonDocument.MetricSummary(n: 0, median: nil, ciLow: nil, ciHigh: nil)

    @Test func comparisonDocument() throws {
        let pair = ComparisonDocument.Pair(
            a: "tcp", b: "udp", metric: "rtt_p50_ms", pValue: 0.01, pAdjusted: 0.02, cliffsDelta: -0.5,
            shift: -0.25, shiftCILow: -0.5, shiftCIHigh: -0.125, verdict: .noDifference, floorMs: 0.5,
            reason: "below_floor")
        let scenario = ComparisonDocument.Scenario(
            environment: "open", distanceLabel: "10m", payload: "1x1024",
            transports: [.init(label: "tcp", metrics: ["rtt_p50_ms": Self.summary])],
            pairs: [pair], withinRun: [pair])
        let full = ComparisonDocument(alpha: 0.05, warnings: ["w"], scenarios: [scenario], measurementFloor: Self.floor)
        try Self.checkText(
            full,
            sorted:
                #"{"alpha":0.05,"measurement_floor":{"clock_ms":0.001,"emulator_release_p50_ms":0.035,"emulator_release_p99_ms":0.094,"notes":["n"],"runs":2,"transports":[{"label":"tcp","p50_ms":0.03,"p99_ms":0.06}]},"notes":null,"scenarios":[{"distance_label":"10m","environment":"open","pairs":[{"a":"tcp","b":"udp","cliffs_delta":-0.5,"floor_ms":0.5,"metric":"rtt_p50_ms","p_adjusted":0.02,"p_value":0.01,"reason":"below_floor","shift":-0.25,"shift_ci_high":-0.125,"shift_ci_low":-0.5,"verdict":"no_difference"}],"payload":"1x1024","transports":[{"label":"tcp","metrics":{"rtt_p50_ms":{"ci_high":1.75,"ci_low":1.25,"median":1.5,"n":6}}}],"within_run":[{"a":"tcp","b":"udp","cliffs_delta":-0.5,"floor_ms":0.5,"metric":"rtt_p50_ms","p_adjusted":0.02,"p_value":0.01,"reason":"below_floor","shift":-0.25,"shift_ci_high":-0.125,"shift_ci_low":-0.5,"verdict":"no_difference"}]}],"schema":"peerbench.compare/1","warnings":["w"]}"#
        )

        let barePair = ComparisonDocument.Pair(
            a: "tcp", b: "udp", metric: "throughput_mbps", pValue: nil, pAdjusted: nil, cliffsDelta: nil,
            shift: nil, shiftCILow: nil, shiftCIHigh: nil, verdict: .insufficient)
        let bareScenario = ComparisonDocument.Scenario(
            environment: "open", distanceLabel: "10m", payload: "-",
            transports: [.init(label: "tcp", metrics: ["throughput_mbps": Self.emptySummary])],
            pairs: [barePair])
        let bare = ComparisonDocument(alpha: 0.05, scenarios: [bareScenario])
        try Self.checkText(
            bare,
            sorted:
                #"{"alpha":0.05,"measurement_floor":null,"notes":null,"scenarios":[{"distance_label":"10m","environment":"open","pairs":[{"a":"tcp","b":"udp","cliffs_delta":null,"floor_ms":null,"metric":"throughput_mbps","p_adjusted":null,"p_value":null,"reason":null,"shift":null,"shift_ci_high":null,"shift_ci_low":null,"verdict":"insufficient"}],"payload":"-","transports":[{"label":"tcp","metrics":{"throughput_mbps":{"ci_high":null,"ci_low":null,"median":null,"n":0}}}],"within_run":null}],"schema":"peerbench.compare/1","warnings":[]}"#
        )
    }

    @Test func baselineDocument() throws {
        let change = BaselineDocument.Change(
            label: "tcp", metric: "rtt_p50_ms", old: Self.summary, new: Self.summary, relativeChange: 0.25,
            relativeCILow: 0.125, relativeCIHigh: 0.375, pValue: 0.01, pAdjusted: 0.02, cliffsDelta: 1,
            verdict: .regressed, floorMs: 0.5, reason: "below_floor")
        let full = BaselineDocument(
            alpha: 0.05, old: "a", new: "b", warnings: ["w"],
            scenarios: [.init(environment: "open", distanceLabel: "10m", payload: "1x1024", changes: [change])],
            measurementFloor: Self.floor)
        try Self.check(
            full,
            ordered:
                #"{"schema":"peerbench.baseline/1","alpha":0.05,"old":"a","new":"b","warnings":["w"],"scenarios":[{"environment":"open","distance_label":"10m","payload":"1x1024","changes":[{"label":"tcp","metric":"rtt_p50_ms","old":{"n":6,"median":1.5,"ci_low":1.25,"ci_high":1.75},"new":{"n":6,"median":1.5,"ci_low":1.25,"ci_high":1.75},"relative_change":0.25,"relative_ci_low":0.125,"relative_ci_high":0.375,"shift":null,"p_value":0.01,"p_adjusted":0.02,"cliffs_delta":1,"verdict":"regressed","floor_ms":0.5,"reason":"below_floor","past_threshold":null}]}],"measurement_floor":{"transports":[{"label":"tcp","p50_ms":0.03,"p99_ms":0.06}],"emulator_release_p50_ms":0.035,"emulator_release_p99_ms":0.094,"clock_ms":0.001,"runs":2,"notes":["n"]},"old_note":null,"new_note":null}"#
        )

        let bareChange = BaselineDocument.Change(
            label: "tcp", metric: "rtt_p50_ms", old: Self.emptySummary, new: Self.emptySummary,
            relativeChange: nil, relativeCILow: nil, relativeCIHigh: nil, pValue: nil, pAdjusted: nil,
            cliffsDelta: nil, verdict: .insufficient, floorMs: nil, reason: nil)
        let bare = BaselineDocument(
            alpha: 0.05, old: "a", new: "b", warnings: [],
            scenarios: [.init(environment: "open", distanceLabel: "10m", payload: "-", changes: [bareChange])],
            measurementFloor: nil)
        try Self.check(
            bare,
            ordered:
                #"{"schema":"peerbench.baseline/1","alpha":0.05,"old":"a","new":"b","warnings":[],"scenarios":[{"environment":"open","distance_label":"10m","payload":"-","changes":[{"label":"tcp","metric":"rtt_p50_ms","old":{"n":0,"median":null,"ci_low":null,"ci_high":null},"new":{"n":0,"median":null,"ci_low":null,"ci_high":null},"relative_change":null,"relative_ci_low":null,"relative_ci_high":null,"shift":null,"p_value":null,"p_adjusted":null,"cliffs_delta":null,"verdict":"insufficient","floor_ms":null,"reason":null,"past_threshold":null}]}],"measurement_floor":null,"old_note":null,"new_note":null}"#
        )
    }

    @Test func comparisonFloorWithoutEmulator() throws {
        let f = ComparisonFloor(transports: [], emulatorReleaseP50Ms: nil, emulatorReleaseP99Ms: nil, clockMs: 0.001)
        try Self.check(
            f, ordered: #"{"transports":[],"emulator_release_p50_ms":null,"emulator_release_p99_ms":null,"clock_ms":0.001,"runs":1,"notes":[]}"#)
    }

    @Test func measurementFloor() throws {
        let clock = MeasurementFloor.Clock(
            source: "CLOCK_MONOTONIC", resolutionNanos: 1, readDeltaMinNanos: 20, readDeltaP50Nanos: 30,
            readDeltaP99Nanos: 40, reads: 100)
        let full = MeasurementFloor(
            measuredAt: "2026-01-02T03:04:05Z", clock: clock,
            loopbackRTT: [.init(label: "tcp", plugin: "tcp", probes: 200, p50Ms: 0.03, p99Ms: 0.06, maxMs: 0.5, error: nil)],
            emulatorReleaseError: .init(packets: 500, p50Micros: 35, p99Micros: 94, calibration: "burst"))
        try Self.check(
            full,
            ordered:
                #"{"measured_at":"2026-01-02T03:04:05Z","clock":{"source":"CLOCK_MONOTONIC","resolution_ns":1,"read_delta_min_ns":20,"read_delta_p50_ns":30,"read_delta_p99_ns":40,"reads":100},"loopback_rtt":[{"label":"tcp","plugin":"tcp","probes":200,"p50_ms":0.03,"p99_ms":0.06,"max_ms":0.5,"error":null}],"emulator_release_error":{"packets":500,"p50_us":35,"p99_us":94,"calibration":"burst"},"load_average":null,"cpus_allowed":null}"#
        )

        let bare = MeasurementFloor(
            measuredAt: "2026-01-02T03:04:05Z", clock: clock,
            loopbackRTT: [.init(label: "uwb", plugin: "uwb", probes: 0, p50Ms: nil, p99Ms: nil, maxMs: nil, error: "not measured")],
            emulatorReleaseError: nil)
        try Self.check(
            bare,
            ordered:
                #"{"measured_at":"2026-01-02T03:04:05Z","clock":{"source":"CLOCK_MONOTONIC","resolution_ns":1,"read_delta_min_ns":20,"read_delta_p50_ns":30,"read_delta_p99_ns":40,"reads":100},"loopback_rtt":[{"label":"uwb","plugin":"uwb","probes":0,"p50_ms":null,"p99_ms":null,"max_ms":null,"error":"not measured"}],"emulator_release_error":null,"load_average":null,"cpus_allowed":null}"#
        )
    }

    @Test func cellSamples() throws {
        let full = CellSamples(
            runID: "r", cellID: "c", repetition: 1, rttNanos: [1_000, 2_000], rttLoadedNanos: [3_000],
            bulkSeries: BulkSeries(intervalNanos: 100_000_000, bytes: [10, 20], datagrams: [1, 2]),
            ranging: [RangingUpdateSample(tNanos: 5, distanceM: 1.5, errorM: -0.25, directionAvailable: true)],
            transactionNanos: [7, 8], frameDelayNanos: [0, 9])
        try Self.check(
            full,
            ordered:
                #"{"schema":"peerbench.samples/1","run_id":"r","cell_id":"c","repetition":1,"rtt_ns":[1000,2000],"rtt_loaded_ns":[3000],"bulk_series":{"interval_ns":100000000,"bytes":[10,20],"datagrams":[1,2]},"ranging":[{"t_ns":5,"distance_m":1.5,"error_m":-0.25,"direction_available":true}],"transaction_ns":[7,8],"frame_delay_ns":[0,9]}"#
        )

        let bare = CellSamples(
            runID: "r", cellID: "c", repetition: 1, rttNanos: [],
            bulkSeries: BulkSeries(bytes: [10]),
            ranging: [RangingUpdateSample(tNanos: 5, distanceM: nil, errorM: nil, directionAvailable: false)])
        try Self.check(
            bare,
            ordered:
                #"{"schema":"peerbench.samples/1","run_id":"r","cell_id":"c","repetition":1,"rtt_ns":[],"rtt_loaded_ns":null,"bulk_series":{"interval_ns":100000000,"bytes":[10],"datagrams":null},"ranging":[{"t_ns":5,"distance_m":null,"error_m":null,"direction_available":false}],"transaction_ns":null,"frame_delay_ns":null}"#
        )
        let none = CellSamples(runID: "r", cellID: "c", repetition: 1, rttNanos: [])
        try Self.check(
            none,
            ordered:
                #"{"schema":"peerbench.samples/1","run_id":"r","cell_id":"c","repetition":1,"rtt_ns":[],"rtt_loaded_ns":null,"bulk_series":null,"ranging":null,"transaction_ns":null,"frame_delay_ns":null}"#
        )
    }

    /// Documents written before a key existed leave it out; it reads as nil.
    @Test func anOptionalKeyMayBeMissing() throws {
        let floor = try JSONCoding.decode(
            MeasurementFloor.self,
            from: Array(
                """
                {"measured_at":"t","clock":{"source":"CLOCK_MONOTONIC","resolution_ns":1,"read_delta_min_ns":2,"read_delta_p50_ns":3,\
                "read_delta_p99_ns":4,"reads":5},"loopback_rtt":[{"label":"tcp","plugin":"tcp","probes":0}]}
                """.utf8))
        #expect(floor.emulatorReleaseError == nil)
        #expect(floor.loopbackRTT.first?.p50Ms == nil && floor.loopbackRTT.first?.error == nil)
        let samples = try JSONDecoder().decode(
            CellSamples.self, from: Data(#"{"schema":"peerbench.samples/1","run_id":"r","cell_id":"c","repetition":1,"rtt_ns":[]}"#.utf8))
        #expect(samples.rttLoadedNanos == nil && samples.bulkSeries == nil && samples.ranging == nil)
    }
}
