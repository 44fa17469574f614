import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchStreams
import PeerBenchWorkloads
import Testing

@Suite("Bulk series: receiver accounting and its REPORT encoding")
struct BulkSeriesTests {
    @Test("arrivals land in 100 ms intervals from the first one; gaps are zeros")
    func intervals() {
        var r = BulkSeriesRecorder(maxIntervals: 100, countsDatagrams: true)
        let t0: UInt64 = 5_000_000_000
        r.record(bytes: 10, at: t0)
        r.record(bytes: 20, at: t0 + 99_999_999)
        r.record(bytes: 30, at: t0 + 100_000_000)
        r.record(bytes: 40, at: t0 + 350_000_000)
        r.record(bytes: 1, at: t0 - 5)  // an earlier stamp counts in the first interval
        #expect(r.series == BulkSeries(intervalNanos: 100_000_000, bytes: [31, 30, 0, 40], datagrams: [3, 1, 0, 1]))
        #expect(BulkSeriesRecorder(maxIntervals: 4).series == nil)
    }

    @Test("a long bulk phase coarsens instead of growing: bounded entries, same total")
    func bounded() {
        var r = BulkSeriesRecorder(maxIntervals: 300)
        // 100 000 messages over 100 s: one per millisecond.
        for i in 0..<100_000 { r.record(bytes: 128, at: UInt64(i) * 1_000_000) }
        let s = r.series!
        #expect(s.bytes.count <= 300)
        #expect(s.intervalNanos == 400_000_000)  // 100 ms doubled twice: 250 entries
        #expect(s.bytes.count == 250)
        #expect(s.bytes.reduce(0, +) == 100_000 * 128)
        #expect(s.bytes.allSatisfy { $0 == 400 * 128 })
    }

    @Test("stream REPORT: counts and series round-trip; a length that disagrees with the count is refused")
    func streamReport() throws {
        let report = StreamReport(messages: 7, bytes: 7_000, series: BulkSeries(bytes: [3_000, 0, 4_000]))
        let frame = report.frame()
        #expect(frame.count == StreamFraming.headerSize + 28 + 3 * 8)
        #expect(Array(frame.prefix(5)) == [0, 0, 0, 52, 0x12])
        let body = Array(frame.dropFirst(StreamFraming.headerSize))
        #expect(StreamReport(body) == report)
        #expect(StreamReport(Array(body.dropLast())) == nil)
        #expect(StreamReport(Array(body.prefix(16))) == nil)
        let empty = StreamReport(messages: 0, bytes: 0, series: nil)
        #expect(StreamReport(Array(empty.frame().dropFirst(StreamFraming.headerSize))) == empty)
        // The receiver's span (asked for by END's flags) adds 8 bytes after the series.
        #expect(StreamFraming.maxReportBody == 28 + 8 * StreamFraming.maxReportIntervals + 8)
        var spanned = report
        spanned.spanNanos = 123_456_789
        let spannedBody = Array(spanned.frame().dropFirst(StreamFraming.headerSize))
        #expect(spannedBody.count == body.count + 8)
        #expect(StreamReport(spannedBody) == spanned)
        #expect(StreamReport(body)?.spanNanos == nil, "a REPORT without the span (an older server) reads as null")
        #expect(StreamReport(spannedBody + [0]) == nil)
    }

    @Test("loaded probe schedule: first after one interval, then one per interval, no burst after a stall")
    func schedule() {
        var s = LoadedProbeSchedule(LoadedRttProbes(intervalMs: 100))
        s.begin(at: 0)
        #expect(s.takeDue(now: 99_000_000) == nil)
        #expect(s.takeDue(now: 100_000_000) == 0)
        #expect(s.takeDue(now: 150_000_000) == nil)
        #expect(s.nanosUntilDue(now: 150_000_000) == 50_000_000)
        #expect(s.takeDue(now: 900_000_000) == 1)  // stalled for 700 ms: one probe, not seven
        #expect(s.takeDue(now: 910_000_000) == nil)
        #expect(s.sent == 2)
        var off = LoadedProbeSchedule(nil)
        off.begin(at: 0)
        #expect(off.takeDue(now: .max - 1) == nil)
    }

    @Test("loadedRttProbes option: absent is off and not recorded; bad values name their path")
    func option() throws {
        let path = JSONPath.root.key("transports").index(0).key("options")
        let absent = try PluginOptions(["noDelay": true], path: path)
        #expect(try LoadedRttProbes.read(absent) == nil)
        #expect(absent.effectiveJSON[LoadedRttProbes.key] == nil)
        let on = try PluginOptions(["loadedRttProbes": ["intervalMs": 50]], path: path)
        #expect(try LoadedRttProbes.read(on)?.intervalNanos == 50_000_000)
        try on.finish()
        let bad = try PluginOptions(["loadedRttProbes": ["intervalMs": 0]], path: path)
        #expect(throws: InputError.self) { try LoadedRttProbes.read(bad) }
        do { _ = try LoadedRttProbes.read(bad) } catch {
            #expect("\(error)".contains("transports[0].options.loadedRttProbes.intervalMs"), "\(error)")
        }
    }

    @Test("loadedRttProbes.flow: same by default and then not recorded; separate where the plugin has it; else refused naming the path")
    func flowOption() throws {
        let path = JSONPath.root.key("transports").index(0).key("options")
        let plain = try PluginOptions(["loadedRttProbes": ["intervalMs": 50]], path: path)
        #expect(try LoadedRttProbes.read(plain)?.flow == .same)
        #expect(plain.effectiveJSON[LoadedRttProbes.key]?["flow"] == nil, "records of runs without flow stay as they were")
        let separate = try PluginOptions(["loadedRttProbes": ["intervalMs": 50, "flow": "separate"]], path: path)
        #expect(try LoadedRttProbes.read(separate) == LoadedRttProbes(intervalMs: 50, flow: .separate))
        try separate.finish()
        let refused = try PluginOptions(["loadedRttProbes": ["flow": "separate"]], path: path)
        do {
            _ = try LoadedRttProbes.read(refused, flows: [.same])
            Issue.record("a plugin with only the same flow accepted separate")
        } catch {
            #expect("\(error)".contains("transports[0].options.loadedRttProbes.flow") && "\(error)".contains("\"same\" only"), "\(error)")
        }
        let unknown = try PluginOptions(["loadedRttProbes": ["flow": "other"]], path: path)
        #expect(throws: InputError.self) { try LoadedRttProbes.read(unknown) }
    }
}

@Suite("Measurement floor: the clock")
struct MeasurementFloorClockTests {
    @Test func successiveReadsAreOrderedAndClose() throws {
        let c = MeasurementFloor.measureClock(reads: 10_000)
        #expect(c.resolutionNanos >= 1 && c.resolutionNanos <= 1_000)
        #expect(c.readDeltaMinNanos <= c.readDeltaP50Nanos && c.readDeltaP50Nanos <= c.readDeltaP99Nanos)
        #expect(c.readDeltaP50Nanos < 10_000, "a vDSO clock read costs well under 10 us: \(c.readDeltaP50Nanos) ns")
        let json = try JSONCoding.encode(MeasurementFloor(measuredAt: "t", clock: c, loopbackRTT: [], emulatorReleaseError: nil))
        #expect(json["emulator_release_error"] == .null)
        #expect(json["clock"]?["read_delta_p50_ns"]?.doubleValue == Double(c.readDeltaP50Nanos))
    }
}
