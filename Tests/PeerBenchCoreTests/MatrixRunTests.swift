import Foundation
import Logging
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Synchronization
import Testing

/// `MatrixRun`, the run core's entry point, end to end on an in-memory testbed: the
/// folder, journal and manifest it leaves, what it reports, how it ends.
@Suite struct MatrixRunTests {
    /// Loopback endpoints and a count of shutdowns: no namespaces, no emulator.
    final class FakeTestbed: Testbed {
        let shutdowns = Mutex(0)
        var mode: LinkMode { .none }
        func configure(_ link: ResolvedLink, seed: UInt64) async throws -> (client: Endpoint, server: Endpoint) {
            (Endpoint(address: "127.0.0.1"), Endpoint(address: "127.0.0.1"))
        }
        func counters() -> LinkCounters? { nil }
        func shutdown() async { shutdowns.withLock { $0 += 1 } }
    }

    struct FakeTestbeds: TestbedFactory {
        let testbed = FakeTestbed()
        var failure: TransportError?
        func makeTestbed(_ mode: LinkMode, plan: RunPlan) async throws -> any Testbed {
            if let failure { throw failure }
            return testbed
        }
    }

    /// Collects the events and cells; stops the run when a cell of `stopAtLabel` starts.
    final class Collector: RunReporter {
        struct Seen {
            var events: [String] = []
            var finished: [String] = []
            var interrupted: [String] = []
        }
        let seen = Mutex(Seen())
        let stopAtLabel: String?
        let run = Mutex<MatrixRun?>(nil)

        init(stopAtLabel: String? = nil) { self.stopAtLabel = stopAtLabel }

        func report(_ event: RunEvent) {
            let name =
                switch event {
                case .warning(let w): "warning: \(w)"
                case .prepared: "prepared"
                case .starting(let s): "starting \(s.pending)"
                case .measuringFloor: "measuringFloor"
                case .cellsStarting(let estimates, _): "cellsStarting \(estimates.count)"
                case .cellsEnded: "cellsEnded"
                case .prompt(let line): "prompt: \(line)"
                }
            seen.withLock { $0.events.append(name) }
        }

        func cellStarted(index: Int, total: Int, cell: Cell) {
            if cell.transport.label == stopAtLabel { run.withLock { $0 }?.stop() }
        }

        func cellFinished(index: Int, total: Int, cell: Cell, record: Record) {
            seen.withLock { $0.finished.append("\(cell.transport.label) \(record.status.rawValue)") }
        }

        func cellInterrupted(index: Int, total: Int, cell: Cell) {
            seen.withLock { $0.interrupted.append(cell.transport.label) }
        }
    }

    static let twoTransports = matrixText(transports: #"[{"plugin": "scripted", "label": "a"}, {"plugin": "scripted", "label": "b"}]"#)
    static let okThenHang = matrixText(
        transports: #"[{"plugin": "scripted", "label": "a"}, {"plugin": "scripted", "label": "b", "options": {"behavior": "hang"}}]"#)

    /// A new run of `matrix` (written to a file) into a fresh folder, in process, over loopback.
    func request(_ matrix: String) throws -> RunRequest {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("pb-matrixrun-\(UUID())").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(matrix.utf8).write(to: URL(fileURLWithPath: base + "/m.json"))
        var r = RunRequest()
        r.matrixFile = base + "/m.json"
        r.out = base + "/out"
        r.isolation = .none
        r.link = LinkMode.none
        r.floorProbe = .inProcess(timeoutSeconds: 0.2)
        r.commandLine = ["peerbench", "run", "m.json"]
        return r
    }

    func run(_ r: RunRequest, testbeds: FakeTestbeds = FakeTestbeds(), reporter: Collector = Collector()) async throws -> RunOutcome {
        let session = MatrixRun(
            r, registry: fieldStudyRegistry, linkModel: FakeLinkModel(), testbeds: testbeds, reporter: reporter,
            logger: Logger(label: "test"))
        reporter.run.withLock { $0 = session }
        defer { reporter.run.withLock { $0 = nil } }
        return try await session.run()
    }

    func manifest(_ folder: String) throws -> Manifest {
        try Manifest(bytes: try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json")))
    }

    func journal(_ folder: String) throws -> [Record] { RunDirectory(path: folder).readRecords().records }

    @Test func aRunRecordsEveryCellAndFinishesItsManifest() async throws {
        let r = try request(Self.twoTransports)
        let testbeds = FakeTestbeds(), reporter = Collector()
        guard case .ended(let ending) = try await run(r, testbeds: testbeds, reporter: reporter) else {
            Issue.record("the run did not end")
            return
        }
        #expect(!ending.session.interrupted)
        #expect(ending.whole.total == 2 && ending.whole.byStatus[.ok] == 2 && ending.cellsLeft == 0)
        let records = try journal(r.out!)
        #expect(records.map(\.transport.label) == ["a", "b"])
        #expect(records.allSatisfy { $0.status == .ok && $0.link.mode == LinkMode.none })
        let m = try manifest(r.out!)
        #expect(m.status == "finished" && m.endedAt != nil)
        #expect(m.cellsRecorded == 2 && m.isolation == "none" && m.linkMode == LinkMode.none)
        #expect(Set(records.map(\.runID)) == [m.runID])
        #expect(m.commandLine == ["peerbench", "run", "m.json"])
        #expect(m.measurementFloor?.loopbackRTT.map(\.label) == ["a", "b"])
        let csv = try String(contentsOfFile: r.out! + "/records.csv", encoding: .utf8)
        #expect(csv.split(separator: "\n").count == 3, "header and one row per record")
        let seen = reporter.seen.withLock { $0 }
        #expect(seen.events == ["prepared", "starting 2", "measuringFloor", "cellsStarting 2", "cellsEnded"])
        #expect(seen.finished == ["a ok", "b ok"])
        #expect(testbeds.testbed.shutdowns.withLock { $0 } >= 1)
    }

    @Test func aStopMidCellLeavesItUnrecordedAndTheRunResumes() async throws {
        var r = try request(Self.okThenHang)
        r.cellTimeoutSeconds = 20
        let t0 = MonotonicClock.now()
        guard case .ended(let stopped) = try await run(r, reporter: Collector(stopAtLabel: "b")) else {
            Issue.record("the stopped run did not wrap up")
            return
        }
        let seconds = Double(MonotonicClock.elapsed(since: t0)) / 1e9
        #expect(seconds < 10, "the stop ends the hanging cell at once, not at its 20 s timeout (took \(seconds) s)")
        #expect(stopped.session.interrupted && stopped.session.total == 1 && stopped.cellsLeft == 1)
        #expect(stopped.session.interruptedCell?.transport.label == "b")
        #expect(try journal(r.out!).map(\.transport.label) == ["a"])
        let m = try manifest(r.out!)
        #expect(m.status == "interrupted")
        #expect(m.interruptedCell?.cellID == stopped.session.interruptedCell?.id)

        // Resumed: only the stopped cell runs (and now hangs to its shorter timeout).
        var resume = RunRequest()
        resume.matrixFile = r.matrixFile
        resume.resume = r.out
        resume.isolation = .none
        resume.floorProbe = r.floorProbe
        resume.cellTimeoutSeconds = 0.3
        let reporter = Collector()
        guard case .ended(let resumed) = try await run(resume, reporter: reporter) else {
            Issue.record("the resumed run did not end")
            return
        }
        #expect(!resumed.session.interrupted && resumed.session.total == 1)
        #expect(resumed.whole.total == 2 && resumed.whole.byStatus[.ok] == 1 && resumed.whole.byStatus[.timeout] == 1)
        #expect(reporter.seen.withLock { $0.finished } == ["b timeout"])
        let after = try manifest(r.out!)
        #expect(after.status == "finished" && after.runID == m.runID && after.sessions?.count == 2)
        #expect(after.interruptedCell == nil)
    }

    @Test func nothingRunsWithoutItsInputOrItsTestbed() async throws {
        var missing = try request(Self.twoTransports)
        missing.matrixFile = missing.matrixFile! + ".gone"
        guard case .badInput(let e) = try await run(missing) else {
            Issue.record("a missing matrix file is bad input")
            return
        }
        #expect(e.description.contains("m.json.gone"))
        #expect(!FileManager.default.fileExists(atPath: missing.out!))

        let r = try request(Self.twoTransports)
        let reporter = Collector()
        guard
            case .testbedUnavailable(let mode, let error) = try await run(
                r, testbeds: FakeTestbeds(failure: TransportError("no link here")),
                reporter: reporter)
        else {
            Issue.record("a testbed that cannot be set up ends the run")
            return
        }
        #expect(mode == LinkMode.none && "\(error)".contains("no link here"))
        #expect(try journal(r.out!).isEmpty)
        #expect(reporter.seen.withLock { $0.events } == ["prepared"])

        var dry = try request(Self.twoTransports)
        dry.dryRun = true
        guard case .planned(let plan, let pending, let recorded) = try await run(dry) else {
            Issue.record("a dry run only plans")
            return
        }
        #expect(plan.cells.count == 2 && pending.count == 2 && recorded == 0)
        #expect(!FileManager.default.fileExists(atPath: dry.out!), "a dry run creates nothing")
    }
}
