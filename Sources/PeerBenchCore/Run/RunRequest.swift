import PeerBenchPlugin
import PeerBenchTestbed

/// What a run is asked to do, as plain values: `peerbench run`'s options once parsed
/// and validated (the executable fills it; `MatrixRun` carries it out). Nothing here
/// is a command-line type, so a test or another tool can ask for a run the same way.
public struct RunRequest: Sendable {
    /// The matrix file; nil: a resumed run's own (as its manifest names it), else ./matrix.json.
    public var matrixFile: String?
    /// The folder of a new run (`--out`).
    public var out: String?
    /// The folder of a run to continue (`--resume`).
    public var resume: String?
    /// With `resume`: also rerun the cells whose last record failed or timed out.
    public var retryFailed = false
    /// Plan only: the outcome is `.planned`, nothing is created, locked or run.
    public var dryRun = false
    /// A past run folder of this matrix whose measured times the estimates use.
    public var calibrateFrom: String?
    /// nil: the matrix's order.
    public var order: CellOrder?
    /// nil: every cell.
    public var shard: Shard?
    public var isolation: Isolation = .process
    /// How this executable serves cells in a worker process (`cell-worker`), used with
    /// `isolation` `.process`.
    public var workerArguments: [String] = []
    /// Where each transport's loopback floor is measured.
    public var floorProbe: FloorProbing = .inProcess(timeoutSeconds: 10)
    /// Labels to run; nil: all of the matrix's transports.
    public var transports: [String]?
    /// nil: a resumed run's own, else `defaultLink`.
    public var link: LinkMode?
    public var defaultLink: LinkMode = .emulated
    public var seed: UInt64?
    public var repetitions: Repetitions?
    public var note: String?
    public var cellTimeoutSeconds: Double?
    /// A field session (`--interactive`): ask before each new environment x distance.
    public var interactive = false
    /// Where a field session's answers come from: a file, or nil / "-" for standard input.
    public var answers: String?
    /// The command line as given, kept in the manifest.
    public var commandLine: [String] = []

    public init() {}

    /// `--repetitions N | auto | auto:MAX`, as the run asks for it.
    public enum Repetitions: Sendable, Equatable {
        case fixed(Int)
        case auto(max: Int?)

        /// The count the plan expands to: N, or MAX (nil: the matrix's).
        public var count: Int? {
            switch self {
            case .fixed(let n): n
            case .auto(let max): max
            }
        }

        var isAuto: Bool { if case .auto = self { true } else { false } }

        /// As a manifest stores it, for the resume check.
        var spelling: String {
            switch self {
            case .fixed(let n): "\(n)"
            case .auto(let max): max.map { "auto:\($0)" } ?? "auto"
            }
        }
    }

    /// Where the measurement floor's loopback probes run.
    public enum FloorProbing: Sendable {
        /// In a child process of this executable started with `arguments` (`peerbench
        /// floor-probe`): a plugin that crashes or hangs costs its floor entry only.
        case childProcess(arguments: [String])
        /// In this process, each transport for at most `timeoutSeconds` (a library
        /// caller or test, which has no such executable).
        case inProcess(timeoutSeconds: Double)
    }

    /// The folder the run writes: the resumed one, else the new one.
    var folder: String? { resume ?? out }
}
