import Dispatch
import Foundation
public import Logging
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed
import Synchronization

/// One `peerbench run`, start to end: plans the cells (or checks a resumed run), opens
/// and locks the folder, sets up the testbed and the worker, keeps the manifest
/// current, measures the floor, runs the cells and wraps up. The executable only reads
/// its options into a `RunRequest`, wires the concrete parts (plugins, link model,
/// testbeds), prints what the `RunReporter` hears and turns the `RunOutcome` into its
/// message and exit status.
///
/// Stopping: `stop()` (the first SIGINT, SIGTERM or SIGHUP) ends the running cell and
/// starts no other; the run then wraps up as `interrupted`, resumable. `abandon()` (a
/// second signal) cleans up at once whatever exists so far, for a caller about to exit.
public final class MatrixRun: Sendable {
    public let request: RunRequest
    public let registry: PluginRegistry
    public let linkModel: any LinkModel
    public let testbeds: any TestbedFactory
    public let reporter: any RunReporter
    public let logger: Logger
    /// Makes the judge of an auto-repetition run (which lives with the analysis, above
    /// the run core); nil runs every repetition up to MAX.
    public let judge: RepetitionJudgeFactory?

    /// Fired by `stop()`; the runner stops the running cell and starts no other.
    let stopper = CellStopper()

    /// What `abandon()` must clean up, told about each part as the run makes it.
    struct Parts {
        var worker: WorkerProcess?
        var book: ManifestBook?
        var testbed: (any Testbed)?
    }
    let parts = Mutex(Parts())

    public init(
        _ request: RunRequest, registry: PluginRegistry, linkModel: any LinkModel, testbeds: any TestbedFactory,
        judge: RepetitionJudgeFactory? = nil, reporter: any RunReporter, logger: Logger
    ) {
        self.request = request
        self.registry = registry
        self.linkModel = linkModel
        self.testbeds = testbeds
        self.judge = judge
        self.reporter = reporter
        self.logger = logger
    }

    /// Asks the run to stop after cleaning up the current cell. Safe from any thread,
    /// at any stage: a stop before the first cell ends the run before it.
    public func stop() { stopper.fire() }

    /// For a caller about to exit at once (a second stop signal): kills the worker,
    /// marks the manifest `interrupted` and gives the testbed's removal a moment (at
    /// most 2 s; namespaces outlive the process, their reaper removes them later). The
    /// journal needs nothing: each record is one write, already flushed.
    public func abandon() {
        let p = parts.withLock { $0 }
        p.worker?.killNow()
        try? p.book?.write(status: "interrupted", ended: true)
        if let testbed = p.testbed {
            let cleaned = DispatchSemaphore(value: 0)
            Task {
                await testbed.shutdown()
                cleaned.signal()
            }
            _ = cleaned.wait(timeout: .now() + 2)
        }
    }

    /// Runs the request. Returns how the run ended; throws only what the setup did not
    /// expect (an error that is not the user's input), as the CLI always has.
    public func run() async throws -> RunOutcome {
        let setup: RunSetup
        do { setup = try RunSetup.prepare(request, registry: registry, linkModel: linkModel) } catch let e as InputError { return .badInput(e) }
        for w in setup.warnings { reporter.report(.warning(w)) }
        guard !request.dryRun, let dir = setup.dir, let resumePoint = setup.resumePoint else {
            return .planned(plan: setup.plan, pending: setup.pending, alreadyRecorded: setup.alreadyRecorded)
        }
        reporter.report(.prepared(resumePoint))
        let testbed: any Testbed
        do { testbed = try await testbeds.makeTestbed(setup.linkMode, plan: setup.plan) } catch let e as InputError {
            return .badInput(e)
        } catch {
            return .testbedUnavailable(setup.linkMode, error)
        }
        parts.withLock { $0.testbed = testbed }
        return await run(setup, in: dir, over: testbed)
    }
}

/// Makes the judge of an auto-repetition run from its rule, the plan's cells and the
/// records a resumed run has already (judged before its first cell).
public typealias RepetitionJudgeFactory = @Sendable (_ rule: AutoRepetitions, _ cells: [Cell], _ recorded: [Record]) -> any RepetitionJudge
