import Foundation
import Logging
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchTestbed
import Synchronization
import Testing
import TransportTestSupport

/// Answers from a list, as a person at the terminal would type them.
final class ScriptedAnswers: FieldInput {
    private let lines: Mutex<[String]>
    init(_ lines: [String]) { self.lines = Mutex(lines) }
    func readLine(stop: @Sendable () -> Bool) -> String? {
        lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
    var left: Int { lines.withLock { $0.count } }
}

/// What the prompter printed.
final class PromptLog: Sendable {
    private let lines = Mutex<[String]>([])
    func write(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A plugin that measures nothing and returns at once: the runner's logic is under test.
struct InstantPlugin: TransportPlugin {
    static let descriptor = PluginDescriptor(name: "instant", summary: "test plugin", options: [])
    init(options: PluginOptions) throws {}
    struct Server: TransportServer {
        var address = SocketAddress(host: "127.0.0.1", port: 9)
        func finish() async throws {}
        func stop() {}
    }
    func startServer(_ cell: CellContext) async throws -> any TransportServer { Server() }
    func runClient(_ cell: CellContext, server: SocketAddress) async throws -> TransportMeasurement {
        var m = TransportMeasurement()
        m.connectNanos = 1_000
        m.rttNanos = [1_000_000]
        return m
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct FieldPromptTests {
    /// 2 environments x 2 distances x 2 transports x 2 repetitions = 16 cells, 4 places.
    static func plan() throws -> RunPlan {
        let text = """
            {"rttProbes": 1, "repetitions": 2,
             "transports": [{"plugin": "instant", "label": "a"}, {"plugin": "instant", "label": "b"}],
             "matrix": {"environments": [{"name": "forest", "link": {}}, {"name": "inner-city", "link": {}}], "distances": [1, 10], "payloads": {"counts": [1], "sizes": [8]}}}
            """
        let registry = PluginRegistry([InstantPlugin.self])
        let matrix = try MatrixLoader(registry: registry, linkModel: LoopbackLinkModel()).parse(Array(text.utf8))
        return try RunPlan(matrix: matrix, options: RunOptions(matrixFile: "field.json", commandLine: []), linkModel: LoopbackLinkModel())
    }

    static func run(_ plan: RunPlan, cells: [Cell]? = nil, answers: ScriptedAnswers, log: PromptLog, into dir: RunDirectory) async throws
        -> RunSummary
    {
        let prompter = FieldPrompter(input: answers) { log.write($0) }
        let runner = Runner(
            registry: PluginRegistry([InstantPlugin.self]), testbed: LoopbackTestbed(), logger: Logger(label: "test"),
            fieldPrompter: prompter)
        return try await runner.run(plan, cells: cells, runID: "field", into: dir, observer: nil)
    }

    static func tempRun(_ plan: RunPlan) throws -> (RunDirectory, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-field-\(UUID())").path
        return (try RunDirectory.create(path, for: plan.matrix), path)
    }

    @Test func goSkipAndQuitThenResumeOffersTheSkippedPlacesAgain() async throws {
        let plan = try Self.plan()
        let (dir, path) = try Self.tempRun(plan)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = PromptLog()
        // forest 1 m: go; forest 10 m: skip; inner-city 1 m: a typo, then go; inner-city 10 m: quit.
        let answers = ScriptedAnswers(["", "s", "later", "", "q", "unused"])
        let summary = try await Self.run(plan, answers: answers, log: log, into: dir)

        #expect(answers.left == 1)
        #expect(
            log.all == [
                "peerbench: place the peer at 1 m in forest, press Enter (s: skip these 4 cells, q: stop; resume later)",
                "peerbench: place the peer at 10 m in forest, press Enter (s: skip these 4 cells, q: stop; resume later)",
                "peerbench: place the peer at 1 m in inner-city, press Enter (s: skip these 4 cells, q: stop; resume later)",
                "peerbench: answer Enter (go), s (skip) or q (stop)",
                "peerbench: place the peer at 10 m in inner-city, press Enter (s: skip these 4 cells, q: stop; resume later)",
            ])
        #expect(summary.interrupted)
        #expect(summary.total == 8)
        #expect(summary.skippedCells == 4)
        #expect(summary.skippedSites == [FieldSite(environment: "forest", distanceLabel: "10")])
        let records = dir.readRecords().records
        // Both repetitions of a place run together: the peer is carried there once.
        #expect(
            records.map { "\($0.environment) \($0.distanceLabel) r\($0.repetition) \($0.transport.label)" } == [
                "forest 1 r1 a", "forest 1 r1 b", "forest 1 r2 a", "forest 1 r2 b",
                "inner-city 1 r1 a", "inner-city 1 r1 b", "inner-city 1 r2 a", "inner-city 1 r2 b",
            ])

        // Resume: the skipped and the unreached places are still pending, and asked again.
        let pending = JournalIndex(records: records).pending(plan.cells, retryFailed: false)
        #expect(pending.count == 8)
        let again = PromptLog()
        let resumed = try await Self.run(plan, cells: pending, answers: ScriptedAnswers(["", ""]), log: again, into: dir)
        #expect(!resumed.interrupted)
        #expect(resumed.total == 8)
        #expect(resumed.skippedCells == 0)
        #expect(again.all.count == 2)
        #expect(again.all[0].contains("10 m in forest"))
        #expect(again.all[1].contains("10 m in inner-city"))
        #expect(JournalIndex(records: dir.readRecords().records).pending(plan.cells, retryFailed: false).isEmpty)
    }

    @Test func endOfInputStopsInsteadOfRunningUnattended() async throws {
        let plan = try Self.plan()
        let (dir, path) = try Self.tempRun(plan)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = PromptLog()
        let summary = try await Self.run(plan, answers: ScriptedAnswers([""]), log: log, into: dir)
        #expect(summary.interrupted)
        #expect(summary.total == 4)
        #expect(log.all.last == "peerbench: no answer (end of input): stopping")
    }

    @Test func aPipeGivesItsLinesAndCtrlCEndsTheWait() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let text = "\r\ns\nq"  // CRLF from a terminal in raw mode; the last line has no newline
        _ = text.withCString { write(fds[1], $0, strlen($0)) }
        close(fds[1])
        let input = DescriptorFieldInput(fd: fds[0])
        #expect(input.readLine(stop: { false }) == "")
        #expect(input.readLine(stop: { false }) == "s")
        #expect(input.readLine(stop: { false }) == "q")
        #expect(input.readLine(stop: { false }) == nil)

        // Nothing typed, and the run's stopper fires: the wait ends, as a stop.
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        let fired = Atomic<Bool>(false)
        after(milliseconds: 300) { fired.store(true, ordering: .relaxed) }
        let waiting = DescriptorFieldInput(fd: fds[0])
        let prompter = FieldPrompter(input: waiting) { _ in }
        let start = MonotonicClock.now()
        #expect(
            prompter.ask(
                FieldSite(environment: "forest", distanceLabel: "max"), cells: 1,
                stop: { fired.load(ordering: .relaxed) }) == .quit)
        let waitedMs = Double(MonotonicClock.elapsed(since: start)) / 1e6
        #expect(waitedMs >= 250)
        #expect(waitedMs < 5_000)
    }

    /// The person takes a while to answer: the keep-alive runs meanwhile, and stops
    /// with the answer (a remote run pings its control channel from it).
    @Test func keepAliveRunsOnlyWhileAQuestionWaits() async throws {
        struct SlowAnswer: FieldInput {
            func readLine(stop: @Sendable () -> Bool) -> String? {
                usleep(450_000)
                return ""
            }
        }
        let plan = try Self.plan()
        let (dir, path) = try Self.tempRun(plan)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pings = Atomic<Int>(0)
        let prompter = FieldPrompter(
            input: SlowAnswer(), keepAliveSeconds: 0.1,
            keepAlive: { pings.add(1, ordering: .relaxed) }
        ) { _ in }
        let runner = Runner(
            registry: PluginRegistry([InstantPlugin.self]), testbed: LoopbackTestbed(), logger: Logger(label: "test"),
            fieldPrompter: prompter)
        let first = Array(plan.cells.prefix { FieldSite($0) == FieldSite(plan.cells[0]) })
        let summary = try await runner.run(plan, cells: first, runID: "field", into: dir, observer: nil)
        #expect(summary.total == first.count)
        let during = pings.load(ordering: .relaxed)
        #expect(during >= 2)  // 450 ms of waiting, a ping every 100 ms (room for a loaded machine)
        usleep(400_000)
        #expect(pings.load(ordering: .relaxed) == during)  // none once answered
    }

    @Test func siteDescriptionsAndGrouping() throws {
        #expect(FieldSite(environment: "forest", distanceLabel: "10").description == "10 m in forest")
        #expect(FieldSite(environment: "lab", distanceLabel: "max").description == "max in lab")
        let cells = try Self.plan().cells
        let grouped = FieldPrompter.groupedBySite(cells)
        #expect(Set(grouped.map(\.key)) == Set(cells.map(\.key)))
        #expect(grouped.count == cells.count)
        // Each place appears as one run of cells.
        var seen: [FieldSite] = []
        for cell in grouped where seen.last != FieldSite(cell) {
            #expect(!seen.contains(FieldSite(cell)))
            seen.append(FieldSite(cell))
        }
        #expect(seen.count == 4)
    }
}
