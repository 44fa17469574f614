import Logging
import PeerBenchCore
import PeerBenchPlugin

/// What `run` hands on: its options as the run core takes them, what the terminal
/// needs, the logger.
extension RunCommand {
    /// The options as the run core takes them (validate() has checked them).
    var request: RunRequest {
        var r = RunRequest()
        r.matrixFile = matrix
        r.out = out
        r.resume = resume
        r.retryFailed = retryFailed
        r.dryRun = dryRun
        r.calibrateFrom = calibrateFrom
        r.order = order
        r.shard = shard.flatMap { try? Shard(parsing: $0) }
        r.isolation = isolation
        r.workerArguments = ["cell-worker"] + (verbose ? ["--verbose"] : [])
        r.floorProbe = .childProcess(arguments: ["floor-probe"])
        r.transports = transports.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        r.link = link
        r.defaultLink = Self.defaultLink
        r.seed = seed
        r.repetitions = repetitions?.requested
        r.note = note
        r.cellTimeoutSeconds = cellTimeout
        r.interactive = field.interactive
        r.answers = field.answers
        r.commandLine = CommandLine.arguments
        return r
    }

    /// How much the terminal prints, and the options the resume command repeats.
    var terminalSettings: RunTerminal.Settings {
        .init(quiet: quiet, verbose: verbose, interactive: field.interactive, isolation: isolation, peer: peer, pskFile: pskFile)
    }

    /// The runner's and plugins' logging: warnings, or everything with --verbose.
    var logger: Logger {
        var logger = Logger(label: "peerbench")
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
