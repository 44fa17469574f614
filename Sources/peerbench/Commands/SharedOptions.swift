import ArgumentParser
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

extension LinkMode: ExpressibleByArgument {}

/// The matrix file argument shared by `run` and `validate`.
struct MatrixArgument: ParsableArguments {
    @Argument(help: "The matrix file (environment x distance x payload, transports).")
    var matrix: String = "matrix.json"
}

/// Exit codes documented in the README and `peerbench --help`.
enum ExitStatus {
    static let cellsNotOK = ExitCode(1)
    static let badInput = ExitCode(2)
    static let testbed = ExitCode(3)
}

/// Prints an input error's problems, one per line, and exits 2.
func fail(_ error: InputError) -> ExitCode {
    for p in error.problems { Terminal.error(p.description) }
    return ExitStatus.badInput
}
