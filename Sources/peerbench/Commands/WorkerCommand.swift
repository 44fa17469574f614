import ArgumentParser
import Foundation
import Logging
import PeerBenchCore

/// Hidden: the worker process `run --isolation process` starts. Reads cell requests
/// on stdin and writes outcomes on fd 3, one JSON line each (see `CellWorker`).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cell-worker",
        abstract: "Run cells for a supervising `peerbench run` (internal).",
        shouldDisplay: false
    )

    @Flag(help: "Debug logging from the plugins.")
    var verbose = false

    func run() async throws {
        // Stopping is the runner's decision (it kills the worker when it must): a
        // SIGTERM sent to the whole job or process group must not turn the running
        // cell into a "crashed" record before the runner has heard of the stop.
        // SIGHUP likewise: the runner decides; the worker ends with it (its lifeline).
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        var logger = Logger(label: "peerbench.worker")
        logger.logLevel = verbose ? .debug : .warning
        try await CellWorker.serve(registry: Wiring.registry, logger: logger)
    }
}
