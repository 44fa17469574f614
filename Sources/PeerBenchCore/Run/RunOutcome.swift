import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// How a `MatrixRun` ended. Every case but `.planned` and a clean `.ended` is something
/// the user must act on; the CLI maps each to its message and exit status.
public enum RunOutcome: Sendable {
    /// A dry run: the cells that would run, in run order, and how many are recorded already.
    case planned(plan: RunPlan, pending: [Cell], alreadyRecorded: Int)
    /// The input was wrong (the matrix, the folder, an option, the peer's address or key,
    /// the answers file): nothing ran.
    case badInput(InputError)
    /// The testbed could not be set up (not an input error): nothing ran.
    case testbedUnavailable(LinkMode, any Error)
    /// The manifest could not be written before the first cell: nothing ran.
    case notStarted(any Error)
    /// Appending a record failed (a full disk): the run stopped; the records written
    /// before are kept and the manifest says `failed`.
    case stopped(any Error)
    /// Every cell ran, but the final manifest or records.csv could not be written;
    /// the journal at `journal` holds every record.
    case unfinished(any Error, journal: String)
    /// The testbed could run no further cell (the peer went away) after `cellsThisTime`
    /// cells of this session: resumable once it is back.
    case testbedLost(reason: String, cellsThisTime: Int)
    /// The run ended, every cell run or (`session.interrupted`) stopped on request.
    case ended(RunEnding)
}
