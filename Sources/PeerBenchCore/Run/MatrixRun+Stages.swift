import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// The stages of a run once its testbed is up, in order: worker and field prompter,
/// the manifest, the measurement floor, the cells, the wrap-up.
extension MatrixRun {
    func run(_ setup: RunSetup, in dir: RunDirectory, over testbed: any Testbed) async -> RunOutcome {
        let plan = setup.plan
        let worker = request.isolation == .process ? WorkerProcess(arguments: request.workerArguments) : nil
        parts.withLock { $0.worker = worker }
        let prompter: FieldPrompter?
        do { prompter = try fieldPrompter(keepAlive: testbeds.keepAlive(for: testbed)) } catch {
            await testbed.shutdown()
            return .badInput(error)
        }
        let runner = Runner(
            registry: registry, testbed: testbed, logger: logger, worker: worker, stopper: stopper,
            fieldPrompter: prompter)
        // Auto repetitions: a resumed run's records are judged before its first cell.
        let judge = plan.matrix.autoRepetitions.flatMap { rule in
            self.judge.map { $0(rule, plan.cells, ManifestBook.ownRecords(dir: dir, plan: plan, runID: setup.runID)) }
        }
        let book = ManifestBook(
            dir: dir, plan: plan, setup: setup, linkMode: testbed.mode, isolation: request.isolation,
            versions: registry.libraryVersions, commandLine: request.commandLine, judge: judge)
        parts.withLock { $0.book = book }
        do { try book.write(status: "running", ended: false) } catch {
            await testbed.shutdown()
            return .notStarted(error)
        }
        reporter.report(
            .starting(
                RunStart(
                    plan: plan, pending: setup.pending.count, alreadyRecorded: setup.alreadyRecorded,
                    link: testbed.mode, isolation: request.isolation, folder: dir.path)))
        await measureFloor(plan, testbed: testbed, book: book)
        return await runCells(setup, in: dir, runner: runner, book: book)
    }

    /// The field session's prompter; nil without `interactive`. Its questions go to the reporter.
    func fieldPrompter(keepAlive: (@Sendable () async -> Void)?) throws(InputError) -> FieldPrompter? {
        guard request.interactive else { return nil }
        var fd: Int32 = 0
        if let answers = request.answers, answers != "-" {
            fd = open(answers, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw InputError(source: "--answers", "cannot open \(answers): \(String(cString: strerror(errno)))") }
        }
        let reporter = self.reporter
        return FieldPrompter(input: DescriptorFieldInput(fd: fd), keepAlive: keepAlive) { reporter.report(.prompt($0)) }
    }

    /// Measured once stops are handled, so a stop ends the measurement too; the
    /// manifest is written again with it.
    func measureFloor(_ plan: RunPlan, testbed: any Testbed, book: ManifestBook) async {
        let releaseError = testbeds.releaseErrorProbe(for: testbed)
        reporter.report(.measuringFloor(emulatorTiming: releaseError != nil))
        let probe = FloorProbe(registry: registry, probing: request.floorProbe, releaseError: releaseError)
        let stopper = self.stopper
        book.measurementFloor = await probe.measure(plan) { stopper.hasFired }
        book.judge?.measured(book.measurementFloor)
        try? book.write(status: "running", ended: false)
    }

    /// Runs the pending cells, then writes the final manifest and records.csv.
    func runCells(_ setup: RunSetup, in dir: RunDirectory, runner: Runner, book: ManifestBook) async -> RunOutcome {
        let plan = setup.plan
        reporter.report(.cellsStarting(estimates: plan.estimates(of: setup.pending), alreadyRecorded: setup.alreadyRecorded))
        let summary: RunSummary
        do {
            summary = try await runner.run(plan, cells: setup.pending, runID: setup.runID, into: dir, observer: reporter, judge: book.judge)
        } catch {
            runner.worker?.killNow()
            await runner.testbed.shutdown()
            reporter.report(.cellsEnded)
            // The reserve makes room for this last manifest on a full disk.
            dir.releaseReserve()
            try? book.write(status: "failed", ended: true)
            return .stopped(error)
        }
        reporter.report(.cellsEnded)
        await runner.testbed.shutdown()
        book.interruptedCell = summary.interruptedCell
        // Freed before the last writes, so a disk that filled up still takes them.
        dir.releaseReserve()
        do {
            try book.write(status: summary.interrupted ? "interrupted" : "finished", ended: true)
            try dir.exportCSV(run: (setup.runID, Set(plan.cells.map(\.key))))
        } catch {
            return .unfinished(error, journal: dir.journalPath)
        }
        if let lost = summary.testbedLost { return .testbedLost(reason: lost, cellsThisTime: summary.total) }
        return .ended(
            RunEnding(
                session: summary, whole: book.wholeRunSummary(), cellsInPlan: plan.cells.count,
                journalPath: dir.journalPath, autoRepetitions: book.judge?.report))
    }
}

extension PluginRegistry {
    /// Versions of the libraries the registered plugins use, for the manifest.
    var libraryVersions: [String: String] {
        var v: [String: String] = [:]
        for name in names { v.merge(self.type(named: name)!.libraryVersions()) { a, _ in a } }
        return v
    }
}
